/**
 * REST x JSON-RPC: each listed record is an ERC-20 token contract on the chain (1.1, 2.1
 * contract_address: "Address of the ERC-20 token contract on the chain"), so eth_getCode (4.6)
 * of its address is not "0x" ("0x" is the answer when there is no code, as for externally owned
 * accounts). Only non-empty code is required: real deployments may show a stub (e.g. the
 * one-byte 0xef) or a proxy, so the bytecode is not inspected for ERC-20 selectors.
 */
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { skip } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { hasAddressShape } from '../../src/harness/formats';
import { callResult } from '../../src/harness/expect';
import { EMPTY_LIST, fetchList, fieldOf, recordLabel, sampled } from '../../src/harness/records';
import { blockedIfMisnamed } from '../../src/harness/field-names';

/** eth_getCode calls in flight at once: the list may be long, the node may rate-limit. */
const PARALLEL = 4;

interface Listed {
  label: string;
  /** Lower-cased: the case of an EIP-55 address is the REST check's business, not the node's. */
  address: string;
}

/** The distinct listed addresses of the form 0x + 40 hex; skips when there are none. */
async function listedAddresses(ctx: CheckContext<'rest' | 'rpc'>): Promise<Listed[]> {
  const tokens = await fetchList(ctx);
  if (tokens.length === 0) skip(EMPTY_LIST);
  const out = new Map<string, Listed>();
  tokens.forEach((record, i) => {
    const f = fieldOf(record, 'contract_address');
    if ('missing' in f || !hasAddressShape(f.value)) return;
    const address = f.value.toLowerCase();
    if (!out.has(address)) out.set(address, { label: recordLabel(record, i, tokens), address });
  });
  if (out.size === 0) blockedIfMisnamed(tokens, ['contract_address']);
  if (out.size === 0) skip('no listed record has a contract_address of the form 0x + 40 hex digits (judged by rest.token.field.contract-address)');
  const skipped = tokens.length - out.size;
  if (skipped > 0) ctx.note(`${skipped} record(s) not asked about (duplicate or malformed contract_address, judged by the REST checks)`);
  return sampled(ctx, [...out.values()], 'listed addresses');
}

function codeCheck(id: string, block: 'latest' | 'pending', statements: string[]): Check {
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rest', 'rpc'],
      title: `every listed contract_address has code at "${block}"`,
    },
    async (ctx) => {
      const listed = await listedAddresses(ctx);
      // Each answer is judged as it comes and a violation recorded in the run's evidence at once:
      // an answer that ends the check afterwards (credentials refused, a gateway down) cannot take it back.
      let empty = 0;
      const queue = [...listed];
      const worker = async (): Promise<void> => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          if (ctx.signal.aborted) return;
          const code = await callResult(ctx.rpc, 'eth_getCode', [next.address, block]);
          if (typeof code !== 'string')
            ctx.violation(`eth_getCode result is not a string for ${next.label}: ${show(code, 60)}`, {
              violated: ['4.6.1'],
              expected: 'a hex string',
              actual: { record: next.label, result: code },
            });
          else if (code === '0x') {
            empty++;
            ctx.violation(`listed token address ${next.label} has no code at "${block}" (eth_getCode returned "0x")`, {
              expected: 'non-empty bytecode at every listed contract_address',
              actual: next.label,
            });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL, listed.length) }, worker));
      if (ctx.signal.aborted) skip('stopped before every address was asked');
      ctx.note(`${listed.length - empty} of ${listed.length} listed address(es) have code at "${block}"`);
    },
  );
}

export const codeChecks: Check[] = [
  codeCheck('cross.token.has-code.latest', 'latest', ['2.1.3', '4.6.1']),
  // Pre-confirmed state is the sealed state plus the transactions accepted since (1.4, 4.6): a
  // contract present at "latest" is present at "pending" too.
  codeCheck('cross.token.has-code.pending', 'pending', ['2.1.3', '1.4.1', '4.6.1']),
];
