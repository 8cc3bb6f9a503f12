import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/setup/db.ts';
import { loadKeyring } from '../../kernel/crypto/keyring.ts';
import { seal, shred, shredForGood, subjectKeyFingerprint, unseal } from './pii.ts';

const ring = loadKeyring({});

describe('subject keys under concurrent sealing', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('opens a value sealed under a key destroyed since to nothing, never to an error', async () => {
    const { db } = database;
    const subject = randomUUID();
    const old = await seal(db, ring, subject, 'before');
    await shred(db, subject);
    const fresh = await seal(db, ring, subject, 'after');
    expect(await unseal(db, ring, subject, old)).toBeNull();
    expect(await unseal(db, ring, subject, fresh)).toBe('after');
  });

  it('never lets a seal that races an erasure make a key of its own, at any moment of the erasure', async () => {
    const { db } = database;
    for (let round = 0; round < 25; round++) {
      const subject = randomUUID();
      const before = await seal(db, ring, subject, `value ${round}`);
      const key = await subjectKeyFingerprint(db, ring, subject);
      const seen = new Set<string | null>();
      let erasing = true;
      const watch = (async () => {
        while (erasing) seen.add(await subjectKeyFingerprint(db, ring, subject));
      })();
      const sealing = Array.from({ length: 6 }, (_, i) =>
        seal(db, ring, subject, `racing ${i}`).then(
          (v) => ({ ok: true as const, v }),
          (err: unknown) => ({ ok: false as const, err }),
        ),
      );
      await shredForGood(db, subject);
      const outcomes = await Promise.all(sealing);
      erasing = false;
      await watch;
      // Only the person's own key, then none: no fresh key was made between its destruction and the mark.
      expect([...seen].filter((k) => k !== key && k !== null)).toEqual([]);
      expect(await unseal(db, ring, subject, before)).toBeNull();
      for (const o of outcomes) {
        if (o.ok) expect(await unseal(db, ring, subject, o.v)).toBeNull();
        else expect((o.err as { code?: string }).code).toBe('UNAUTHENTICATED');
      }
      await expect(seal(db, ring, subject, 'later')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    }
  });
});
