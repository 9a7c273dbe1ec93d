/**
 * A long secret (an RSA-4096 private key in a CI variable named like a credential, 3,200
 * characters): its cut edge was one optional group nested per character, and compiling it ran
 * V8 out of memory and aborted the process at the first write, before any report.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Egress } from '../../src/cli/egress';
import { Redactor, REDACTED } from '../../src/harness/redact';

const pem = generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const body = pem.split('\n').slice(1, -2).join('');

describe('a secret of thousands of characters', () => {
  it('registered from the environment, the gate masks a console line (no abort)', () => {
    const written: string[] = [];
    const gate = Egress.forRun([], { DEPLOY_PRIVATE_KEY: pem });
    gate.stream({ isTTY: false, write: (t) => (written.push(t), true) }, 'stdout').write(`status: conformant\n`);
    expect(written.join('')).toBe('status: conformant\n');
  });

  it.each([
    ['the start of its JSON form before the suite’s cut mark, 1,000 characters of it', () => JSON.stringify(pem).slice(1, 1001) + '…'],
    ['the start of its JSON form before the cut mark, 60 characters', () => JSON.stringify(pem).slice(1, 61) + '…'],
    ['the start of a line of it before "...", 10 characters', () => `${body.slice(0, 10)}...`],
  ])('%s: nothing of it is left', (_name, make) => {
    const r = new Redactor().add(pem);
    const text = `x ${make()}`;
    const out = r.text(text);
    expect(out.startsWith(`x ${REDACTED}`)).toBe(true);
    expect(r.leaks(out)).toBe(false);
  });

  it('200 characters of it as written (lines and all), cut or not: nothing of it is left', () => {
    const r = new Redactor().add(pem);
    const out = r.text(`x ${pem.slice(28, 228)} and more`);
    expect(r.leaks(out)).toBe(false);
    for (const line of pem.split('\n').slice(1, 4)) expect(out).not.toContain(line.slice(0, 16));
  });
});
