import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { envelopeKeyId, openValue, sealValue } from './envelope.ts';
import { loadKeyring } from '../../kernel/crypto/keyring.ts';

const key = () => randomBytes(32).toString('base64');

describe('keyring', () => {
  it('reads ENCRYPTION_KEY as v0, versioned keys, files, and the active key id', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-key-')), 'k');
    fs.writeFileSync(file, `${key()}\n`);
    const ring = loadKeyring({ ENCRYPTION_KEY: key(), ENCRYPTION_KEY_V1_FILE: file, ENCRYPTION_ACTIVE_KEY_ID: 'v1' });
    expect([...ring.keys.keys()].sort()).toEqual(['v0', 'v1']);
    expect(ring.activeKeyId).toBe('v1');
    expect(loadKeyring({ ENCRYPTION_KEY_V2: key() }).activeKeyId).toBe('v2');
    expect(loadKeyring({ ENCRYPTION_KEY: key(), ENCRYPTION_KEY_V3: key() }).activeKeyId).toBe('v0');
    expect(loadKeyring({}).activeKeyId).toBeNull();
  });

  it('prefers the direct variable to the file, and names the variable of a bad key', () => {
    const direct = key();
    const ring = loadKeyring({ ENCRYPTION_KEY: direct, ENCRYPTION_KEY_FILE: '/nonexistent' });
    expect(ring.keys.get('v0')!.toString('base64')).toBe(direct);
    expect(() => loadKeyring({ ENCRYPTION_KEY: 'short' })).toThrow(/ENCRYPTION_KEY must be the base64 of exactly 32/);
    expect(() => loadKeyring({ ENCRYPTION_KEY_V1: randomBytes(16).toString('base64') })).toThrow(/ENCRYPTION_KEY_V1/);
    expect(() => loadKeyring({ ENCRYPTION_KEY: key(), ENCRYPTION_ACTIVE_KEY_ID: 'v9' })).toThrow(
      /ENCRYPTION_ACTIVE_KEY_ID/,
    );
    expect(() => loadKeyring({ ENCRYPTION_KEY_V1_FILE: '/nonexistent/key' })).toThrow(/ENCRYPTION_KEY_V1_FILE/);
  });
});

describe('envelope', () => {
  const ring = loadKeyring({ ENCRYPTION_KEY: key(), ENCRYPTION_KEY_V1: key(), ENCRYPTION_ACTIVE_KEY_ID: 'v1' });

  it('round-trips under the active key and records the key id', () => {
    const e = sealValue(ring, 'secret', 'main/people/1/ssn');
    expect(e).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(envelopeKeyId(e)).toBe('v1');
    expect(e).not.toContain('secret');
    expect(openValue(ring, e, 'main/people/1/ssn')).toBe('secret');
    expect(sealValue(ring, 'secret', 'x')).not.toBe(sealValue(ring, 'secret', 'x'));
  });

  it('refuses a tampered envelope, another place, and an unknown key', () => {
    const e = sealValue(ring, 'secret', 'main/people/1/ssn', 'v0');
    const raw = Buffer.from(e.slice(3), 'base64');
    raw[14] = raw[14]! ^ 1;
    expect(openValue(ring, `v0:${raw.toString('base64')}`, 'main/people/1/ssn')).toBeNull();
    expect(openValue(ring, e, 'other/people/1/ssn')).toBeNull();
    expect(openValue(ring, e, 'main/people/2/ssn')).toBeNull();
    expect(openValue(loadKeyring({ ENCRYPTION_KEY_V1: key() }), e, 'main/people/1/ssn')).toBeNull();
    expect(openValue(ring, 'not an envelope', 'x')).toBeNull();
  });
});
