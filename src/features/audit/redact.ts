import { dictFrom } from '../../kernel/safe/keys.ts';

/** What the audit view shows in place of secret material. */
export const REDACTED = '[redacted]';

// Names of fields that hold credentials or derive from them: secrets, hashes, passwords, tokens, seeds, codes, keys.
const SECRET_NAME = /secret|hash|passw|token|seed|recovery|credential|privatekey|signingkey|sealed|apikey/i;
// Counters, ids, times and kinds that only mention a secret by name (`tokenVersion`, `tokenId`, `secretRotatedAt`).
const HARMLESS_SUFFIX = /(version|count|id|ids|at|type|kind|reason|method|step|index|expires|expiresat)$/i;
// A value sealed with a subject's key (`pii:…`): ciphertext is no one's business in a log view.
const SEALED_VALUE = /^pii:/;

/** Whether a field of that name holds secret material. */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name) && !HARMLESS_SUFFIX.test(name);

/**
 * A copy of an event's data with every secret replaced by `[redacted]`, at any depth: fields named like a secret
 * (whatever their value) and sealed values. Built on null-prototype objects: event keys never reach a prototype.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return SEALED_VALUE.test(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  return dictFrom(
    Object.entries(value).map(([k, v]) => [k, isSecretName(k) && v !== null ? REDACTED : redactSecrets(v, depth + 1)]),
  );
}
