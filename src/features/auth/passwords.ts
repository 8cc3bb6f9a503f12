import { hash, verify } from '@node-rs/argon2';

// argon2id (the library's default algorithm) with OWASP's second recommended profile.
export const ARGON2_OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/**
 * How many password hashes this process has computed: a path that must cost the same whatever the answer
 * (sign-up with a new or a known address) is tested by comparing this count, never by timing.
 */
export const passwordWork = { hashes: 0 };

export const hashPassword = (password: string) => {
  passwordWork.hashes += 1;
  return hash(password, ARGON2_OPTIONS);
};

let dummy: Promise<string> | null = null;

/** Verifies; with no hash (unknown user) it still spends the same work, so timing reveals nothing. */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) {
    dummy ??= hashPassword('dummy-password-for-timing');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
