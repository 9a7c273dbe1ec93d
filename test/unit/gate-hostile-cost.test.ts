/**
 * The gate against a target that knows what it is masked against: a credential it was sent, or
 * the public start of one (a PEM's `-----BEGIN PRIVATE KEY-----`). Whatever it answers, masking
 * ends in time linear in the answer. A secret holding a backslash before n, r or t (the
 * JSON-escaped form of any secret with a line break, which the redactor registers: every PEM)
 * let the whitespace-split pattern try every escaped newline of the answer as the secret's own,
 * each try rescanning the rest: 128 Ki escaped newlines cost half a minute, 16 MiB days.
 * The time is measured by `npm run bench -- gate`; these tests hold the answers.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Redactor, REDACTED } from '../../src/harness/redact';
import { SecretMatcher } from '../../src/harness/secret-match';

/** Escaped newlines in the answer: 128 Ki of them, a quarter of a MiB of text (before the fix, 15 to 60 s each). */
const PAIRS = 128 * 1024;

const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('a hostile answer costs the gate time linear in its size', () => {
  it('a PEM registered (its JSON form holds \\n), the answer its public header then escaped newlines: left as it is', () => {
    const r = new Redactor().add(pem);
    const text = `-----BEGIN PRIVATE KEY-----${'\\n'.repeat(PAIRS)}x`;
    // No time bound here: 16 MiB of escapes costs the decodings seconds (linear); the point is that nothing is thrown.
    expect(r.mask(text)).toEqual({ text, clean: true });
  });

  it('a secret holding a backslash before n (\\n as typed), the answer its start then escaped newlines: not a hit', () => {
    const m = new SecretMatcher().add('pa55\\nw0rd!x');
    expect(m.finds(`pa55${'\\n'.repeat(PAIRS)}x`)).toBe(false);
  });

  it('a secret holding an invisible character, the answer its start then many of them: not a hit', () => {
    const m = new SecretMatcher().add('pa55\u200bw0rd!x');
    expect(m.finds(`pa55${'\u200b'.repeat(PAIRS)}x`)).toBe(false);
  });

  it('a Bearer token registered, the answer `B` (public: the whole header value is registered) then 16 MiB of spaces or escaped newlines: masked, no RangeError out of the gate', () => {
    const r = new Redactor().addCredential('Bearer sk_live_T0ken/Q7xW2kLm$9PzR');
    for (const gap of [' ', '\\n']) {
      const text = `B${gap.repeat((16 << 20) / gap.length)}x`;
      // No time bound here: 16 MiB of escapes costs the decodings seconds (linear); the point is that nothing is thrown.
      expect(r.mask(text)).toEqual({ text, clean: true });
    }
  });

  it('the start of a secret before a [cut edge, then one 16 MiB token: the whole text hidden, no RangeError out of the gate', () => {
    const r = new Redactor().addCredential('Bearer sk_live_T0ken/Q7xW2kLm$9PzR');
    expect(r.mask(`sk_live_[cut ${'a'.repeat(16 << 20)}`).clean).toBe(false);
    // A token ending in an odd run of backslashes keeps one: counted from its end, not by a pattern tried at each of them.
    expect(r.text(`say sk_live_...${'\\'.repeat((1 << 20) + 1)}`) === `say ${REDACTED}\\`).toBe(true);
  });

  it('a secret split by the widest GAP still masked; wider, left (a backtracking stack is bounded)', () => {
    const r = new Redactor().add('q7Xw2kLm9PzR4tYb');
    const spread = (gap: string) => [...'q7Xw2kLm9PzR4tYb'].join(gap);
    expect(r.text(`a ${spread(`\n${' '.repeat(255)}`)} b`)).toBe(`a ${REDACTED} b`);
    expect(r.text(`a ${spread(' '.repeat(257))} b`)).toBe(`a ${spread(' '.repeat(257))} b`);
  });

  it('the PEM is still masked as written, JSON-escaped, and JSON-escaped with whitespace between its characters', () => {
    const r = new Redactor().add(pem);
    const json = JSON.stringify(pem).slice(1, -1);
    expect(r.text(`a ${json} b`)).toBe(`a ${REDACTED} b`);
    expect(r.text(`a ${[...json].join(' ')} b`)).toBe(`a ${REDACTED} b`);
    expect(r.leaks(r.text(`a ${pem} b`))).toBe(false);
  });

  it('a secret with a backslash is masked as written and with whitespace between its characters', () => {
    const r = new Redactor().add('pa55\\nw0rd!x');
    expect(r.text('a pa55\\nw0rd!x b')).toBe(`a ${REDACTED} b`);
    expect(r.text('a p a 5 5 \\ n w 0 r d ! x b')).toBe(`a ${REDACTED} b`);
  });
});
