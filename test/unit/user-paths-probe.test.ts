// The start-up probe reads each URL's first answer for the mistakes people make with them: only
// what a conformant target never answers at all is a misdirection; the rest is the checks' to judge.
import { misdirection } from '../../src/cli/target';

const html = { 'content-type': 'text/html; charset=utf-8' };
const json = { 'content-type': 'application/json' };
const envelope = { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'invalid request' } };

describe('misdirection', () => {
  it.each([
    [
      'a node answering the list with an envelope',
      'rest',
      { status: 200, headers: json, text: JSON.stringify(envelope), json: envelope },
      /--base-url answers like a JSON-RPC node.*did you swap/,
    ],
    [
      'a node answering the list with an envelope and 405',
      'rest',
      { status: 405, headers: json, text: JSON.stringify(envelope), json: envelope },
      /did you swap/,
    ],
    [
      'a node answering the list with a batch of envelopes',
      'rest',
      { status: 200, headers: json, text: JSON.stringify([envelope]), json: [envelope] },
      /did you swap/,
    ],
    [
      'a web server 404 page at the list',
      'rest',
      { status: 404, headers: html, text: '<!DOCTYPE html><html><body>Not Found</body></html>' },
      /--base-url is a web server, not the API/,
    ],
    [
      'the REST API answering eth_chainId with 404 JSON',
      'rpc',
      { status: 404, headers: json, text: '{"code":5,"message":"not found"}', json: { code: 5, message: 'not found' } },
      /--rpc-url does not speak JSON-RPC.*HTTP 404 and JSON that is not a JSON-RPC envelope.*did you swap/,
    ],
    ['the REST API answering a POST with 405 and no body', 'rpc', { status: 405, headers: {}, text: '' }, /HTTP 405 and no JSON/],
    [
      "a web server's page for a POST it does not implement (501, Python's http.server)",
      'rpc',
      {
        status: 501,
        headers: html,
        text: '<!DOCTYPE HTML>\n<html lang="en"><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: 501</p></body></html>',
      },
      /does not speak JSON-RPC: eth_chainId was answered with an HTML page \(HTTP 501\) from a web server/,
    ],
    [
      'a web page answering eth_chainId with 200',
      'rpc',
      { status: 200, headers: html, text: '<html><body>Welcome</body></html>' },
      /an HTML page \(HTTP 200\) from a web server/,
    ],
  ] as const)('%s: named with its fix', (_what, which, answer, message) => {
    expect(misdirection(which, answer)).toMatch(message);
  });

  it.each([
    ['a conformant list', 'rest', { status: 200, headers: json, text: '{"tokens":[]}', json: { tokens: [] } }],
    [
      'a list carrying members an envelope has too (unknown extra fields)',
      'rest',
      { status: 200, headers: json, text: '{"jsonrpc":"2.0","id":1,"result":null,"tokens":[]}', json: { jsonrpc: '2.0', id: 1, result: null, tokens: [] } },
    ],
    [
      'the records as a bare array (a spec failure to judge, 2.2)',
      'rest',
      { status: 200, headers: json, text: '[{"symbol":"AAPL"}]', json: [{ symbol: 'AAPL' }] },
    ],
    ['an empty bare array', 'rest', { status: 200, headers: json, text: '[]', json: [] }],
    ['the list as an HTML page with 200 (a spec failure to judge, 4.1)', 'rest', { status: 200, headers: html, text: '<html><body>AAPL</body></html>' }],
    ["a gateway's HTML 500 (the target's own trouble)", 'rest', { status: 500, headers: html, text: '<html><body>500</body></html>' }],
    ['a list demanding a key', 'rest', { status: 401, headers: json, text: '{"code":16}', json: { code: 16 } }],
    [
      'a node answering',
      'rpc',
      { status: 200, headers: json, text: '{"jsonrpc":"2.0","id":1,"result":"0x1"}', json: { jsonrpc: '2.0', id: 1, result: '0x1' } },
    ],
    ["a provider's 401 without an envelope", 'rpc', { status: 401, headers: json, text: '{"message":"unauthorized"}', json: { message: 'unauthorized' } }],
    ['a node answering 200 with a broken body (judged by 4.2)', 'rpc', { status: 200, headers: json, text: '{"jsonrpc":"2.0","id":1,"res', json: undefined }],
    ['an HTML 503 from a proxy', 'rpc', { status: 503, headers: html, text: '<html><body>503</body></html>' }],
  ] as const)('%s: not a misdirection', (_what, which, answer) => {
    expect(misdirection(which, answer)).toBeUndefined();
  });

  it('names the Action inputs when given them', () => {
    expect(misdirection('rpc', { status: 404, headers: {}, text: '' }, { baseUrl: 'base-url:', rpcUrl: 'rpc-url:' })).toMatch(
      /^rpc-url: does not speak.*did you swap base-url: and rpc-url:\?/,
    );
  });
});
