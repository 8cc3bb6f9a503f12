import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyVariable, unwrapKey, wrapKey } from './key-wrap.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';

const ring = (active: string, ...ids: string[]): Keyring => ({
  keys: new Map(ids.map((id) => [id, randomBytes(32)])),
  activeKeyId: active,
});

describe('wrapping a key under an instance key', () => {
  it('opens to the same key under the same owner, and is longer than the key', () => {
    const r = ring('v0', 'v0');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string(), (bytes, owner) => {
        const key = Buffer.from(bytes);
        const w = wrapKey(r, key, owner);
        expect(w.keyId).toBe('v0');
        expect(w.wrapped.length).toBe(60);
        expect(unwrapKey(r, w, owner).equals(key)).toBe(true);
      }),
    );
  });

  it('does not open under another owner (moved to another subject) or once altered', () => {
    const r = ring('v0', 'v0');
    const w = wrapKey(r, randomBytes(32), 'subject_keys:a');
    expect(() => unwrapKey(r, w, 'subject_keys:b')).toThrow(/does not open/);
    const altered = Buffer.from(w.wrapped);
    altered[20]! ^= 1;
    expect(() => unwrapKey(r, { ...w, wrapped: altered }, 'subject_keys:a')).toThrow(/does not open/);
  });

  it('names the variable of a key that is not configured', () => {
    const w = wrapKey(ring('v1', 'v1'), randomBytes(32), 'x');
    expect(() => unwrapKey(ring('v0', 'v0'), w, 'x')).toThrow('set ENCRYPTION_KEY_V1');
    expect(keyVariable('v0')).toBe('ENCRYPTION_KEY');
    expect(keyVariable('k2024')).toBe('ENCRYPTION_KEY_K2024');
  });

  it('refuses to wrap without an active key', () => {
    expect(() => wrapKey({ keys: new Map(), activeKeyId: null }, randomBytes(32), 'x')).toThrow('no encryption key');
  });
});
