import { sign, verify, type KeyObject } from 'node:crypto';
import { keyIdOf, kindOf, type SigningKey } from '../signing-keys';

/** DSSE (Dead Simple Signing Envelope) v1, as in-toto attestations are carried. */
export interface Envelope {
  payloadType: string;
  /** Base64 of the payload bytes. */
  payload: string;
  signatures: Array<{ keyid?: string; sig: string }>;
}

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/** The pre-authentication encoding: what is signed, so that the type cannot be swapped under a signature. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

const digestOf = (key: KeyObject) => (kindOf(key) === 'ed25519' ? null : 'sha256');

export function signEnvelope(payload: Buffer, payloadType: string, signer: SigningKey): Envelope {
  const sig = sign(digestOf(signer.key), pae(payloadType, payload), signer.key);
  return { payloadType, payload: payload.toString('base64'), signatures: [{ keyid: signer.keyid, sig: sig.toString('base64') }] };
}

/**
 * Whether the envelope's one signature is this key's and verifies. The keyid must be this key's
 * (an envelope naming another key is not this key's, whatever its bytes); more or fewer than one
 * signature is refused, so no signature rides along unchecked.
 */
export function verifyEnvelope(envelope: Envelope, key: KeyObject): { ok: boolean; why?: string } {
  const keyid = keyIdOf(key);
  if (envelope.signatures.length !== 1) return { ok: false, why: `${envelope.signatures.length} signatures; a certificate carries exactly one` };
  const [s] = envelope.signatures;
  if (s.keyid !== keyid) return { ok: false, why: `no signature by the key given (its keyid is ${keyid}; the envelope names ${s.keyid ?? '(no keyid)'})` };
  const signed = pae(envelope.payloadType, Buffer.from(envelope.payload, 'base64'));
  let ok: boolean;
  try {
    ok = verify(digestOf(key), signed, key, Buffer.from(s.sig, 'base64'));
  } catch {
    ok = false;
  }
  return ok ? { ok } : { ok, why: `the signature does not verify with the key given (keyid ${keyid}): the envelope was altered or signed by another key` };
}
