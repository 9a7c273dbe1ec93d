// A method the node says it does not serve is one root per method (expect.ts METHOD_ROOT).
import { notServedBy } from '../../src/harness/rpc';
import { expectServed, METHOD_ROOT } from '../../src/harness/expect';
import { Blocked } from '../../src/harness/verdict';

describe('notServedBy: the node says it does not serve the method', () => {
  it.each([
    [{ code: -32601, message: 'the method eth_getBlockReceipts does not exist/is not available' }, true],
    [{ code: -32004, message: 'Method eth_getBlockReceipts is not supported' }, true],
    [{ code: -32000, message: 'Method eth_getBlockReceipts is not supported' }, true],
    [{ code: -32603, message: 'eth_getBlockReceipts not found' }, true],
    // A provider naming the method after the refusal, with the generic -32600 (Alchemy).
    [{ code: -32600, message: 'Unsupported method: eth_getBlockReceipts on BASE_MAINNET' }, true],
    [{ code: -32000, message: 'method not whitelisted: eth_getBlockReceipts' }, true],
    // The method named, but not as the one refused.
    [{ code: -32000, message: 'unsupported block tag for eth_getBlockReceipts: "pending"' }, false],
    // A refused block parameter names no method: the method's own rule judges it.
    [{ code: -32602, message: 'invalid block tag "pending": unsupported' }, false],
    [{ code: -32000, message: 'header not found' }, false],
    [{ code: 3, message: 'execution reverted: eth_getBlockReceipts' }, false],
    ['not an error object', false],
  ])('%j: %s', (error, expected) => expect(notServedBy('eth_getBlockReceipts', error)).toBe(expected));
});

describe('expectServed', () => {
  it('blocks by the method root, citing its rule; passes a served answer and a method outside the spec', () => {
    let thrown: unknown;
    try {
      expectServed('eth_estimateGas', { notServed: '{"code":-32601}' }, 'eth_estimateGas');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Blocked);
    expect(thrown).toMatchObject({ root: METHOD_ROOT.eth_estimateGas.id, detail: { violated: ['4.4.1'] } });
    expect(() => expectServed('eth_estimateGas', {}, 'eth_estimateGas')).not.toThrow();
    expect(() => expectServed('eth_call', { notServed: '{"code":-32601}' }, 'eth_call')).not.toThrow();
  });
});
