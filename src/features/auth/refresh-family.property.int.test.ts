import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../kernel/es/event-store.ts';
import { fold } from '../../kernel/es/decider.ts';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { sessionDecider } from './session.decider.ts';
import { sessionStream, type SessionEvent } from '../../contracts/auth/session.events.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await t.setup();
});
afterAll(() => t.close());

const refresh = (refreshToken: string) =>
  t.call({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken } });

describe('refresh-token families', () => {
  it('never leave two live refresh tokens, whatever the interleaving of refresh calls', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Batches of concurrent refreshes; each picks a token from those issued so far.
        fc.array(fc.array(fc.nat(20), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        async (batches) => {
          const login = (await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN })).json().data;
          const pool: string[] = [login.refreshToken];
          const successes = new Map<string, number>();
          for (const batch of batches) {
            const picked = batch.map((i) => pool[i % pool.length]!);
            const answers = await Promise.all(picked.map(refresh));
            answers.forEach((res, k) => {
              expect([200, 401]).toContain(res.statusCode);
              if (res.statusCode !== 200) return;
              successes.set(picked[k]!, (successes.get(picked[k]!) ?? 0) + 1);
              pool.push(res.json().data.refreshToken);
            });
          }
          // No token was ever exchanged twice.
          for (const n of successes.values()) expect(n).toBe(1);
          // Of every token issued in the family, at most one would still be accepted.
          const sessionId = login.refreshToken.slice(5).split('.')[0];
          const events = await collect(t.deps.store.readStream<SessionEvent>(sessionStream(sessionId)));
          const state = fold(
            sessionDecider,
            events.map((e) => ({ type: e.type, data: e.data }) as SessionEvent),
          );
          const accepted = pool.filter((token) => {
            const parsed = t.deps.tokens.parseRefresh(token)!;
            try {
              const out = sessionDecider.decide(
                {
                  type: 'RefreshSession',
                  data: { ...parsed, userTokenVersion: 0, now: new Date().toISOString() },
                },
                state,
              );
              return out[0]?.type === 'SessionRefreshed';
            } catch {
              return false;
            }
          });
          expect(accepted.length).toBeLessThanOrEqual(1);
          if (state.status === 'revoked') expect(accepted).toEqual([]);
          else expect(accepted).toEqual([pool[pool.length - 1]]);
        },
      ),
      { numRuns: 15 },
    );
  });
});
