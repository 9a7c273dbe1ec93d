/**
 * What a target can do knowing nothing secret: the word `Bearer` and a PEM's armour line are
 * public, yet the whole header value and the whole PEM are registered, and a cut edge is any
 * start of 6 characters or more of a form before `[cut`, `...` or `…`. A target writing
 * `Bearer[cut` or `-----BEGIN PRIVATE KEY-----...` had the gate hide every text holding it whole
 * (its answers, and the failures quoting them), though it gave nothing away.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Redactor, REDACTED } from '../../src/harness/redact';

const BEARER = 'sk_live_T0ken/Q7xW2kLm$9PzR';
const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const redactor = () => new Redactor().addCredential(`Bearer ${BEARER}`).add(pem);

describe('public starts of registered secrets are no cut edge', () => {
  it.each([
    'Authorization: Bearer[cut] the rest of the answer',
    'send Bearer... with your token',
    'key: -----BEGIN PRIVATE KEY-----[cut] the rest',
    'key: -----BEGIN PRIVATE KEY-----...',
  ])('%s: left as it is', (text) => {
    const r = redactor();
    expect(r.mask(text)).toEqual({ text, clean: true });
  });

  it.each([
    [`Bearer ${BEARER.slice(0, 8)}...`, `Bearer ${REDACTED}`],
    [`${BEARER.slice(0, 8)}...`, REDACTED],
    [`${pem.split('\n')[1]!.slice(0, 10)}...`, REDACTED],
  ])('the secret after it still has its cut edge: %s', (text, masked) => {
    const r = redactor();
    expect(r.leaks(text)).toBe(true);
    expect(r.text(`x ${text}`)).toBe(`x ${masked}`);
  });
});
