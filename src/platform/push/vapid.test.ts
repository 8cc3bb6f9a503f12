import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { generateVapidKeys, readVapid } from './vapid.ts';

const pair = generateVapidKeys;
const env = (over: Record<string, string | undefined> = {}) => {
  const { pub, priv } = pair();
  return { VAPID_PUBLIC_KEY: pub, VAPID_PRIVATE_KEY: priv, VAPID_SUBJECT: 'mailto:ops@example.com', ...over };
};

describe('VAPID settings', () => {
  it('takes a matching P-256 pair with a mailto: or https: subject', () => {
    const e = env();
    expect(readVapid(e)).toEqual({
      vapid: { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY, subject: 'mailto:ops@example.com' },
      problem: null,
    });
    expect(readVapid(env({ VAPID_SUBJECT: 'https://example.com/contact' })).problem).toBeNull();
  });

  it('is off when none is set', () => expect(readVapid({})).toEqual({ vapid: null, problem: null }));

  it('makes pairs it takes, the private scalar always 32 bytes (Node drops its leading zeros, one key in 256)', () => {
    for (let i = 0; i < 600; i++) {
      const { pub, priv } = generateVapidKeys();
      expect(Buffer.from(priv, 'base64url')).toHaveLength(32);
      expect(
        readVapid({ VAPID_PUBLIC_KEY: pub, VAPID_PRIVATE_KEY: priv, VAPID_SUBJECT: 'mailto:a@example.com' }).problem,
      ).toBeNull();
    }
  });

  it('names the variable that is missing or wrong', () => {
    const other = pair();
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ VAPID_PRIVATE_KEY: undefined }, /^VAPID_PRIVATE_KEY: Web Push needs all three/],
      [{ VAPID_PUBLIC_KEY: undefined }, /^VAPID_PUBLIC_KEY: Web Push needs all three/],
      [{ VAPID_SUBJECT: undefined }, /^VAPID_SUBJECT: Web Push needs all three/],
      [{ VAPID_PUBLIC_KEY: 'not base64url!' }, /^VAPID_PUBLIC_KEY: must be base64url of the raw 65-byte/],
      [{ VAPID_PUBLIC_KEY: Buffer.alloc(33, 2).toString('base64url') }, /^VAPID_PUBLIC_KEY/],
      // 65 bytes that start like a point but are not on the curve.
      [
        { VAPID_PUBLIC_KEY: Buffer.concat([Buffer.of(4), Buffer.alloc(64, 1)]).toString('base64url') },
        /^VAPID_PUBLIC_KEY/,
      ],
      [
        { VAPID_PRIVATE_KEY: Buffer.alloc(31, 1).toString('base64url') },
        /^VAPID_PRIVATE_KEY: must be base64url of the 32-byte/,
      ],
      [{ VAPID_PRIVATE_KEY: other.priv }, /^VAPID_PRIVATE_KEY: is not the private key of VAPID_PUBLIC_KEY/],
      [{ VAPID_SUBJECT: 'ops@example.com' }, /^VAPID_SUBJECT: must be a contact URI/],
      [{ VAPID_SUBJECT: 'http://example.com' }, /^VAPID_SUBJECT/],
    ];
    for (const [over, message] of cases) expect(readVapid(env(over)).problem, JSON.stringify(over)).toMatch(message);
  });

  it('stops the start with that message', () => {
    expect(() => loadConfig(env({ VAPID_SUBJECT: 'nobody' }))).toThrow(/invalid configuration:\n {2}VAPID_SUBJECT/);
    expect(loadConfig(env()).vapid?.subject).toBe('mailto:ops@example.com');
    expect(loadConfig({}).vapid).toBeNull();
  });
});
