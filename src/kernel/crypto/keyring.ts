import fs from 'node:fs';

/** The field-encryption keys (spec "Encryption key rules"): versioned 32-byte keys and the one new data uses. */
export interface Keyring {
  keys: Map<string, Buffer>;
  /** Null when no key is configured: encrypted fields cannot be written. */
  activeKeyId: string | null;
}

const PREFIX = 'ENCRYPTION_KEY';

function decode(name: string, value: string): Buffer {
  const v = value.trim();
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(v) || Buffer.from(v, 'base64').length !== 32)
    throw new Error(`${name} must be the base64 of exactly 32 random bytes (e.g. openssl rand -base64 32)`);
  return Buffer.from(v, 'base64');
}

/**
 * `ENCRYPTION_KEY` is key `v0`; `ENCRYPTION_KEY_<ID>` is key `<id>` (lower case); each may instead come from a
 * file named by the same variable with `_FILE` (the direct variable wins). `ENCRYPTION_ACTIVE_KEY_ID` picks the key
 * for new data: by default the only configured key, else `v0`. A bad key stops the start, naming the variable.
 */
export function loadKeyring(env: NodeJS.ProcessEnv): Keyring {
  const keys = new Map<string, Buffer>();
  const ids = new Set<string>();
  for (const name of Object.keys(env)) {
    if (name !== PREFIX && !name.startsWith(`${PREFIX}_`)) continue;
    const base = name.endsWith('_FILE') ? name.slice(0, -'_FILE'.length) : name;
    if (base === PREFIX || /^ENCRYPTION_KEY_[A-Za-z0-9]+$/.test(base)) ids.add(base);
  }
  for (const base of ids) {
    const id = base === PREFIX ? 'v0' : base.slice(PREFIX.length + 1).toLowerCase();
    const direct = env[base];
    const file = env[`${base}_FILE`];
    if (direct) keys.set(id, decode(base, direct));
    else if (file) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        throw new Error(`${base}_FILE: cannot read ${file}: ${(err as Error).message}`);
      }
      keys.set(id, decode(`${base}_FILE (${file})`, text));
    }
  }
  const wanted = env.ENCRYPTION_ACTIVE_KEY_ID?.trim().toLowerCase();
  if (wanted && !keys.has(wanted))
    throw new Error(
      `ENCRYPTION_ACTIVE_KEY_ID names ${wanted}, but no ENCRYPTION_KEY_${wanted.toUpperCase()} is configured`,
    );
  const activeKeyId = wanted || (keys.size === 1 ? [...keys.keys()][0]! : keys.has('v0') ? 'v0' : null);
  if (!activeKeyId && keys.size > 1)
    throw new Error('several encryption keys are configured: set ENCRYPTION_ACTIVE_KEY_ID to the one for new data');
  return { keys, activeKeyId };
}
