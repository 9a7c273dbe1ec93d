// Other users of a test chain: 0-value self-transfers from an unlocked dev account, sent straight
// to the reference (not through a proxy under test), so sealed and pending blocks hold others'
// transactions, as on a live network. Each send is bounded; its answer is read and dropped.
export function startSelfTransfers(rpcUrl: string, from: string, everyMs: number): NodeJS.Timeout {
  let id = 0;
  return setInterval(() => {
    void fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'eth_sendTransaction', params: [{ from, to: from, value: '0x0' }] }),
      signal: AbortSignal.timeout(5000),
    }).then(
      (r) => r.text(),
      () => undefined,
    );
  }, everyMs);
}
