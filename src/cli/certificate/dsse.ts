import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

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

/** A PEM key file is a few kilobytes (an RSA 16384-bit private key about 12 KiB): more is no key file. */
export const MAX_KEY_FILE_BYTES = 64 * 1024;

export class KeyError extends Error {
  override name = 'KeyError';
}

/** The kinds of key the suite signs and verifies with: ECDSA P-256 (SHA-256, DER signatures) and Ed25519. */
type KeyKind = 'ecdsa-p256' | 'ed25519';

function kindOf(key: KeyObject): KeyKind | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ecdsa-p256';
  return undefined;
}

/** sha256 of the public key's SPKI DER: names the key without revealing anything about the private half. */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return `sha256:${createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('hex')}`;
}

export interface SigningKey {
  key: KeyObject;
  keyid: string;
  /** The PEM text as given: registered with the run's Redactor so that it can never be printed. */
  pem: string;
}

/** A private key in PEM. Errors never quote the key material. */
export function loadSigningKey(pem: string, source: string): SigningKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new KeyError(`${source}: not a PEM private key (value not shown)`);
  }
  if (!kindOf(key))
    throw new KeyError(
      `${source}: a ${key.asymmetricKeyType} key${key.asymmetricKeyDetails?.namedCurve ? ` on ${key.asymmetricKeyDetails.namedCurve}` : ''}; use an ECDSA P-256 or Ed25519 key`,
    );
  return { key, keyid: keyIdOf(key), pem };
}

/** The key's text as a Redactor should know it: the whole PEM, and each base64 line of it alone. */
export function keyMaterial(k: SigningKey): string[] {
  return [
    k.pem,
    ...k.pem
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l.length >= 16 && !l.startsWith('-----')),
  ];
}

/** A public key in PEM (a private key is accepted too: its public half is used). */
export function loadPublicKey(pem: string, source: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new KeyError(`${source}: not a PEM public key`);
  }
  if (!kindOf(key)) throw new KeyError(`${source}: a ${key.asymmetricKeyType} key; certificates are signed with ECDSA P-256 or Ed25519 keys`);
  return key;
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
