/**
 * The egress gate's cost on a large text: Redactor.mask (the literal forms, then the search of
 * every decoding in secret-match.ts) over 4 MiB of the shapes a run writes or quotes, with the
 * three credentials of a provider URL and header registered, and a signing key. Each text is new to the redactor
 * (nothing remembered), as a report file is.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Redactor } from '../src/harness/redact';

const MiB = 1 << 20;
const base64 = (s: string) => Buffer.from(s).toString('base64');

function filled(unit: () => string, size: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const u = unit();
    parts.push(u);
    length += u.length;
  }
  return parts.join('').slice(0, size);
}

/** The shapes: what a node answers most (hex), base64 blobs of binary data and of text, prose full of escapes, and two made to cost the most. */
export const GATE_SHAPES: Record<string, () => string> = {
  'hex JSON (receipts)': () => filled(() => `{"blockHash":"0x${randomBytes(32).toString('hex')}","logs":[],"status":"0x1"},`, 4 * MiB),
  'base64 of random bytes': () => filled(() => `"${randomBytes(300).toString('base64')}",`, 4 * MiB),
  'base64 of text': () => filled(() => `"${Buffer.from('the quick brown fox jumps over the lazy dog, '.repeat(6)).toString('base64')}",`, 4 * MiB),
  'prose with & and \\ escapes': () => filled(() => 'a &amp; b \\n "name": "Apple Inc." &lt;tag&gt; \\u0041 %20 ', 4 * MiB),
  // The worst cases of the third level of base64 and of secrets split by whitespace: every level
  // decodes to printable text, and every character starts a near-match of a registered key.
  'base64 of base64 of base64 of text': () => filled(() => `"${base64(base64(base64('the quick brown fox jumps over the lazy dog, '.repeat(6))))}",`, 4 * MiB),
  'a key spaced out, all but its last character': () => filled(() => `${[...'q7Xw2kLm9PzR4tY'].join(' ')} `, 4 * MiB),
  // The worst case of base64 and hex written in groups found: a line of four groups, the fewest
  // joined, one short run per line, each decoded as hex and as base64.
  'a hex dump, four groups a line': () => filled(() => '71 37 58 4a\n', 4 * MiB),
  // A PEM's public header then escaped newlines: its registered JSON form holds \n, which a GAP
  // could match too (quadratic before GAPs were kept from matching the character after them).
  "a PEM's header then escaped newlines": () => `-----BEGIN PRIVATE KEY-----${'\\n'.repeat(2 * MiB - 14)}x`,
  // The same with a --secret typed with a backslash, and one holding an invisible character.
  'a secret typed with \\n: its start then escaped newlines': () => `pa55${'\\n'.repeat(2 * MiB - 3)}x`,
  'a secret holding U+200B: its start then 4 Mi of them': () => `pa55${'\u200b'.repeat(4 * MiB - 5)}x`,
};

/** Median CPU milliseconds of `runs` masks of each 4 MiB shape. */
export function gateCost(runs = 3): Array<{ shape: string; ms: number; all: number[] }> {
  const redactor = new Redactor().addTarget({
    urlVar: 'RPC_URL',
    url: 'https://node.example/v2/q7Xw2kLm9PzR4tYb?apikey=QKEY987654321zz',
    headerVar: 'RPC_HEADER',
    headers: { Authorization: 'Bearer sk_live_T0ken/Q7xW2kLm$9PzR' },
  });
  // A signing key, as --certify registers it (its JSON form has \n between its lines).
  redactor.add(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  // Two --secret values a user may type: a backslash before n, an invisible character.
  redactor.add('pa55\\nw0rd!x').add('pa55\u200bw0rd!y');
  return Object.entries(GATE_SHAPES).map(([shape, make]) => {
    const text = make();
    const all: number[] = [];
    for (let i = 0; i < runs; i++) {
      // CPU time of this thread (the mask is synchronous): on a shared machine, wall time measures the neighbours.
      const t = process.cpuUsage();
      redactor.mask(`${text} ${i}`);
      const used = process.cpuUsage(t);
      all.push((used.user + used.system) / 1000);
    }
    const sorted = [...all].sort((a, b) => a - b);
    return { shape, ms: sorted[Math.floor(runs / 2)], all };
  });
}
