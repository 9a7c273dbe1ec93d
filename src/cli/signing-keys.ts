// The keys a certificate is signed and verified with, read from PEM: below the configuration (which
// loads --sign-key) and the egress gate (which masks the key's text), so neither reaches up into
// certificate/, which signs and verifies with them (dsse.ts).
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

/** A PEM key file is a few kilobytes (an RSA 16384-bit private key about 12 KiB): more is no key file. */
export const MAX_KEY_FILE_BYTES = 64 * 1024;

export class KeyError extends Error {
  override name = 'KeyError';
}

/** The kinds of key the suite signs and verifies with: ECDSA P-256 (SHA-256, DER signatures) and Ed25519. */
type KeyKind = 'ecdsa-p256' | 'ed25519';

export function kindOf(key: KeyObject): KeyKind | undefined {
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
