import type { AppDeps } from '../../deps.ts';

/** Longest address kept (RFC 5321's path limit less its angle brackets), counted in characters once normalised. */
export const MAX_ADDRESS_LENGTH = 254;

/**
 * The one form of an address that suppressions compare: trimmed, Unicode NFC, the whole address lower-cased, NFC
 * again (lower-casing may leave a sequence that composes). `Ada@Example.COM`, ` ada@example.com ` and an NFD
 * spelling of the same letters are one address. Lower-casing the local part goes beyond RFC 5321, which leaves it to
 * the receiving host; no provider in use treats case there as two mailboxes, and a suppression that missed a case
 * variant would send marketing mail to someone who asked for none.
 */
export function normaliseAddress(email: string): string {
  let s = email.trim();
  // A few rounds reach the fixed point (each round only lower-cases and composes); normalising twice changes nothing.
  for (let i = 0; i < 4; i++) {
    const next = s.normalize('NFC').toLowerCase().normalize('NFC').trim();
    if (next === s) break;
    s = next;
  }
  return s;
}

// Control characters and line or paragraph separators: never part of an address, and a header-injection risk.
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u;
const LONE_SURROGATE = /\p{Cs}/u;

/** Why an address is refused (null: acceptable): at most 254 characters, exactly one `@`, no control characters. */
export function addressProblem(email: string): { reason: string; message: string } | null {
  const n = normaliseAddress(email);
  if (CONTROL.test(email) || LONE_SURROGATE.test(email))
    return { reason: 'control_character', message: 'an address holds no control characters' };
  if ([...n].length > MAX_ADDRESS_LENGTH)
    return { reason: 'too_long', message: `an address has at most ${MAX_ADDRESS_LENGTH} characters` };
  const parts = n.split('@');
  if (parts.length !== 2 || !parts[0] || !parts[1])
    return { reason: 'format', message: 'an address is <local part>@<domain>, with exactly one @' };
  return null;
}

/** The keyed hash a suppression is kept under: the instance's address hasher over the normalised address. */
export const addressHash = (hasher: AppDeps['addresses'], email: string): string =>
  hasher.hash(normaliseAddress(email));
