// The reference requires a few viem utilities and undici's Agent and request API from their own
// modules, not the packages' entries (start-up time): each must be the very one the entry exports.
import * as utils from 'viem/utils';
import * as undici from 'undici';
import * as parts from '../../src/reference/viem-parts';

describe("the reference's viem and undici parts", () => {
  it.each(Object.keys(parts))('%s is the function viem/utils exports', (name) => {
    expect(typeof (parts as Record<string, unknown>)[name]).toBe('function');
    expect((parts as Record<string, unknown>)[name]).toBe((utils as Record<string, unknown>)[name]);
  });

  it("undici's Agent and request API are those its entry exports", () => {
    expect(require('undici/lib/dispatcher/agent')).toBe(undici.Agent);
    expect(require('undici/lib/api/api-request')).toBe((undici.Dispatcher.prototype as unknown as Record<string, unknown>).request);
  });
});
