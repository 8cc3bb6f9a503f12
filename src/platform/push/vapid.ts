import { createECDH, createPublicKey } from 'node:crypto';

/**
 * A new VAPID key pair as VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY take it: the private scalar padded to its 32 bytes
 * (Node's ECDH drops leading zero bytes, one key in 256).
 */
export function generateVapidKeys(): { pub: string; priv: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const scalar = ecdh.getPrivateKey();
  const priv = Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]);
  return { pub: ecdh.getPublicKey().toString('base64url'), priv: priv.toString('base64url') };
}

/** The service's one VAPID key pair (RFC 8292) and contact, as the environment gives them. */
export interface Vapid {
  /** base64url of the raw 65-byte uncompressed P-256 point. */
  publicKey: string;
  /** base64url of the 32-byte private scalar. */
  privateKey: string;
  /** A contact URI: `mailto:` an address, or an https URL. */
  subject: string;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

/** Bytes of a base64url text, or null when it is not one. */
export function base64url(text: string): Buffer | null {
  if (!B64URL.test(text)) return null;
  return Buffer.from(text, 'base64url');
}

/** Whether bytes are an uncompressed point on P-256 (0x04 ‖ x ‖ y). */
export function isP256Point(bytes: Buffer | null): boolean {
  if (!bytes || bytes.length !== 65 || bytes[0] !== 4) return false;
  try {
    createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: bytes.subarray(1, 33).toString('base64url'),
        y: bytes.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}

type VapidEnv = { VAPID_PUBLIC_KEY?: string; VAPID_PRIVATE_KEY?: string; VAPID_SUBJECT?: string };

/**
 * The VAPID settings, or null when none is set; what is wrong with them (naming the variable) as `problem`. All three
 * or none: the public key must be a P-256 point, the private key its 32-byte scalar, the subject a contact URI.
 */
export function readVapid(env: VapidEnv): { vapid: Vapid | null; problem: string | null } {
  const { VAPID_PUBLIC_KEY: pub, VAPID_PRIVATE_KEY: priv, VAPID_SUBJECT: subject } = env;
  if (!pub && !priv && !subject) return { vapid: null, problem: null };
  const fail = (problem: string) => ({ vapid: null, problem });
  if (!pub)
    return fail('VAPID_PUBLIC_KEY: Web Push needs all three of VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT');
  if (!priv)
    return fail('VAPID_PRIVATE_KEY: Web Push needs all three of VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT');
  if (!subject)
    return fail('VAPID_SUBJECT: Web Push needs all three of VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT');
  const point = base64url(pub);
  if (!isP256Point(point))
    return fail('VAPID_PUBLIC_KEY: must be base64url of the raw 65-byte uncompressed P-256 public point');
  const scalar = base64url(priv);
  if (!scalar || scalar.length !== 32)
    return fail('VAPID_PRIVATE_KEY: must be base64url of the 32-byte private scalar');
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(scalar);
    if (!ecdh.getPublicKey().equals(point!))
      return fail('VAPID_PRIVATE_KEY: is not the private key of VAPID_PUBLIC_KEY');
  } catch {
    return fail('VAPID_PRIVATE_KEY: is not a valid P-256 private scalar');
  }
  if (!/^mailto:[^@\s]+@[^@\s]+$/.test(subject) && !/^https:\/\/[^\s/]+/.test(subject))
    return fail('VAPID_SUBJECT: must be a contact URI, mailto:someone@example.com or an https:// URL');
  return { vapid: { publicKey: pub, privateKey: priv, subject }, problem: null };
}
