/**
 * The egress gate's cost on a 16 MiB answer of each shape: Redactor.mask (one literal pass over
 * the text for every form of every registered credential), each shape in a child process of its
 * own so that its peak RSS is its own. Targets: any shape at most 1.5× the CPU of plain text, and
 * at most 300 MiB. The credentials are a run's: a provider URL's path and query keys, a bearer
 * token, a Basic password, a signing key, a --secret, and a 64 KiB token.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import { Redactor } from '../src/harness/redact';

const MiB = 1 << 20;
const SIZE = 16 * MiB;
const BEARER = 'sk_live_T0ken/Q7xW2kLm$9PzR';

function filled(unit: () => string, size = SIZE): string {
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const u = unit();
    parts.push(u);
    length += u.length;
  }
  return parts.join('').slice(0, size);
}

/** The shapes: plain prose, what a node answers most (hex), base64 of binary data and of text, escape-dense prose, and two made to cost the most. */
export const GATE_SHAPES: Record<string, () => string> = {
  plain: () => filled(() => 'the quick brown fox jumps over the lazy dog; '),
  'hex JSON (receipts)': () => filled(() => `{"blockHash":"0x${randomBytes(32).toString('hex')}","logs":[],"status":"0x1"},`),
  'base64 of random bytes': () => filled(() => `"${randomBytes(300).toString('base64')}",`),
  'base64 of text': () => filled(() => `"${Buffer.from('the quick brown fox jumps over the lazy dog, '.repeat(6)).toString('base64')}",`),
  'escape-dense prose': () => filled(() => 'a &amp; b \\n "name": "Apple Inc." &lt;tag&gt; \\u0041 %20 &#115; '),
  // A target that holds a credential may repeat the start of its forms: each repetition is one comparison of up to 256 characters.
  "a credential's start, over and over": () => filled(() => `${BEARER.slice(0, 20)} `),
  'the start of the 64 KiB token, 300 characters at a time': () => filled(() => `${LONG.slice(0, 300)} `),
};

const LONG = randomBytes(48 * 1024).toString('base64url');

function redactor(): Redactor {
  return new Redactor()
    .addTarget({
      urlVar: 'RPC_URL',
      url: 'https://node.example/v2/q7Xw2kLm9PzR4tYb?apikey=QKEY987654321zz',
      headerVar: 'RPC_HEADER',
      headers: { Authorization: `Bearer ${BEARER}`, 'X-Long-Token': LONG },
    })
    .addUrl('https://operator:c0rrect-horse@api.example/')
    .add(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString())
    .add('tenant-s3cret-value');
}

export interface GateCost {
  shape: string;
  /** The least CPU milliseconds of the masks. */
  ms: number;
  all: number[];
  /** The child's peak RSS. */
  peakRssMb: number;
}

/** In this process: the CPU time of `runs` masks of one shape, and the peak RSS. */
function measure(shape: string, runs: number): GateCost {
  const r = redactor();
  const text = GATE_SHAPES[shape]();
  const all: number[] = [];
  for (let i = 0; i < runs; i++) {
    // CPU time of this thread (the mask is synchronous): on a shared machine, wall time measures the neighbours.
    const t = process.cpuUsage();
    r.mask(`${text} ${i}`);
    const used = process.cpuUsage(t);
    all.push((used.user + used.system) / 1000);
  }
  return { shape, ms: Math.min(...all), all, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

/** Each shape measured in a child process of its own. */
export function gateCost(runs = 3): GateCost[] {
  return Object.keys(GATE_SHAPES).map((shape) => {
    const child = spawnSync(process.execPath, [path.join(__dirname, '../bin/run-ts.js'), __filename, shape, String(runs)], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`gate bench, ${shape}: exit ${child.status}\n${child.stderr}`);
    return JSON.parse(child.stdout.trim().split('\n').pop()!) as GateCost;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === __filename && process.argv[2])
  process.stdout.write(`${JSON.stringify(measure(process.argv[2], Number(process.argv[3] ?? 3)))}\n`);
