import { describe, expect, it } from 'vitest';
import { generateApiKey, hashSecret, parseApiKey, secretMatches } from './api-key.secrets.ts';

describe('API key secrets', () => {
  it('formats a secret key as svck_<id>_<secret> and shows its first 12 characters', () => {
    const k = generateApiKey('AbC123', false);
    expect(k.key).toMatch(/^svck_AbC123_[A-Za-z0-9_-]{43}$/);
    expect(k.prefix).toBe(k.key.slice(0, 12));
    expect(parseApiKey(k.key)).toEqual({ id: 'AbC123', secret: k.key.slice(12), publishable: false });
  });

  it('formats a publishable key as svck_pub_<id>_<secret>', () => {
    const k = generateApiKey('AbC123', true);
    expect(k.key).toMatch(/^svck_pub_AbC123_[A-Za-z0-9_-]{43}$/);
    expect(parseApiKey(k.key)).toMatchObject({ id: 'AbC123', publishable: true });
  });

  it('keeps only the SHA-256 of the secret', () => {
    const k = generateApiKey('id1', false);
    const secret = parseApiKey(k.key)!.secret;
    expect(k.secretHash).toBe(hashSecret(secret));
    expect(k.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(k.key).not.toContain(k.secretHash);
  });

  it('matches the right secret only', () => {
    const k = generateApiKey('id1', false);
    const secret = parseApiKey(k.key)!.secret;
    expect(secretMatches(secret, k.secretHash)).toBe(true);
    const tampered = (secret[0] === 'A' ? 'B' : 'A') + secret.slice(1);
    expect(secretMatches(tampered, k.secretHash)).toBe(false);
    expect(secretMatches(secret, 'not-hex')).toBe(false);
  });

  it('refuses shapes that are not keys', () => {
    for (const token of ['svck_', 'svck_abc', 'svck_abc_short', 'svck_a!b_' + 'x'.repeat(43), 'eyJhbGciOi.x.y'])
      expect(parseApiKey(token)).toBeNull();
  });
});
