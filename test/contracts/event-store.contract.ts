import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMetadata, NewEvent, StoredEvent } from '../../src/kernel/es/event.ts';
import { collect, WrongExpectedVersion, type EventStore } from '../../src/kernel/es/event-store.ts';

export interface ContractSubject {
  store: EventStore;
  close(): Promise<void>;
}

const meta = (siteId: string, occurredAt = new Date().toISOString()): EventMetadata => ({
  siteId,
  actor: { type: 'user', id: 'u-1' },
  correlationId: randomUUID(),
  causationId: null,
  requestId: 'req-1',
  occurredAt,
});

const ev = (n: number, siteId = 'contract', occurredAt?: string): NewEvent => ({
  type: 'ThingHappened',
  data: { n },
  metadata: meta(siteId, occurredAt),
});

const uniqueStream = (site = 'contract') => `${site}/thing/${randomUUID()}`;

/** The behaviour every event-store adapter must have (DESIGN §3); each adapter's test file runs it. */
export function eventStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`${name} event store contract`, () => {
    let subject: ContractSubject;
    let store: EventStore;
    beforeAll(async () => {
      subject = await open();
      store = subject.store;
    });
    afterAll(() => subject.close());

    const read = (s: string, opts?: Parameters<EventStore['readStream']>[1]) => collect(store.readStream(s, opts));

    describe('append', () => {
      it('starts a stream with no_stream and with 0', async () => {
        const a = uniqueStream();
        const b = uniqueStream();
        expect((await store.append(a, [ev(1)], { expectedVersion: 'no_stream' })).nextExpectedVersion).toBe(1);
        expect((await store.append(b, [ev(1)], { expectedVersion: 0 })).nextExpectedVersion).toBe(1);
      });

      it('appends at the expected version and numbers events consecutively', async () => {
        const s = uniqueStream();
        await store.append(s, [ev(1), ev(2)], { expectedVersion: 'no_stream' });
        const res = await store.append(s, [ev(3), ev(4), ev(5)], { expectedVersion: 2 });
        expect(res.nextExpectedVersion).toBe(5);
        expect((await read(s)).map((e) => [e.streamVersion, (e.data as { n: number }).n])).toEqual([
          [1, 1],
          [2, 2],
          [3, 3],
          [4, 4],
          [5, 5],
        ]);
      });

      it('rejects a wrong expected version and writes nothing of that append', async () => {
        const s = uniqueStream();
        await store.append(s, [ev(1)], { expectedVersion: 'no_stream' });
        await expect(store.append(s, [ev(2), ev(3)], { expectedVersion: 5 })).rejects.toBeInstanceOf(
          WrongExpectedVersion,
        );
        await expect(store.append(s, [ev(2)], { expectedVersion: 'no_stream' })).rejects.toBeInstanceOf(
          WrongExpectedVersion,
        );
        await expect(store.append(uniqueStream(), [ev(1)], { expectedVersion: 3 })).rejects.toBeInstanceOf(
          WrongExpectedVersion,
        );
        expect((await read(s)).length).toBe(1);
        expect(await store.streamVersion(s)).toBe(1);
      });

      it('appends with any, to new and existing streams', async () => {
        const s = uniqueStream();
        await store.append(s, [ev(1)], { expectedVersion: 'any' });
        expect((await store.append(s, [ev(2)], { expectedVersion: 'any' })).nextExpectedVersion).toBe(2);
      });

      it('lets exactly one of two concurrent writers at one version win', async () => {
        const s = uniqueStream();
        await store.append(s, [ev(0)], { expectedVersion: 'no_stream' });
        const results = await Promise.allSettled(
          [1, 2, 3, 4].map((n) => store.append(s, [ev(n), ev(n * 10)], { expectedVersion: 1 })),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results.filter((r) => r.status === 'rejected'))
          expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersion);
        expect((await read(s)).map((e) => e.streamVersion)).toEqual([1, 2, 3]);
      });
    });

    describe('readStream', () => {
      it('reads nothing from a missing stream', async () => {
        expect(await read(uniqueStream())).toEqual([]);
        expect(await store.streamVersion(uniqueStream())).toBeNull();
      });

      it('round-trips type, data and metadata exactly', async () => {
        const s = uniqueStream('meta-site');
        const e = {
          type: 'Shaped',
          data: { nested: { a: [1, 'two', null], b: true }, text: 'héllo' },
          metadata: meta('meta-site', '2026-03-01T10:00:00.000Z'),
        };
        await store.append(s, [e], { expectedVersion: 'no_stream' });
        const [got] = await read(s);
        expect(got).toMatchObject({
          type: 'Shaped',
          data: e.data,
          metadata: e.metadata,
          streamId: s,
          siteId: 'meta-site',
          streamVersion: 1,
        });
        expect(got!.eventId).toEqual(expect.any(String));
        expect(typeof got!.globalPosition).toBe('bigint');
      });

      it('reads from and to a version, and until a time', async () => {
        const s = uniqueStream();
        const times = [
          '2026-03-01T00:00:00.000Z',
          '2026-03-02T00:00:00.000Z',
          '2026-03-03T00:00:00.000Z',
          '2026-03-04T00:00:00.000Z',
        ];
        await store.append(
          s,
          times.map((t, i) => ev(i + 1, 'contract', t)),
          { expectedVersion: 'no_stream' },
        );
        expect((await read(s, { fromVersion: 2, toVersion: 3 })).map((e) => e.streamVersion)).toEqual([2, 3]);
        expect((await read(s, { until: new Date('2026-03-02T12:00:00Z') })).map((e) => e.streamVersion)).toEqual([
          1, 2,
        ]);
        expect(await read(s, { until: new Date('2026-02-01T00:00:00Z') })).toEqual([]);
      });

      it('keeps streams of different sites apart', async () => {
        const id = randomUUID();
        await store.append(`site-a/thing/${id}`, [ev(1, 'site-a')], { expectedVersion: 'no_stream' });
        await store.append(`site-b/thing/${id}`, [ev(2, 'site-b'), ev(3, 'site-b')], { expectedVersion: 'no_stream' });
        expect((await read(`site-a/thing/${id}`)).map((e) => e.siteId)).toEqual(['site-a']);
        expect((await read(`site-b/thing/${id}`)).map((e) => e.siteId)).toEqual(['site-b', 'site-b']);
      });
    });

    describe('readAll', () => {
      async function readEverything(after?: string): Promise<StoredEvent[]> {
        const all: StoredEvent[] = [];
        for (let cp = after; ;) {
          const page = await store.readAll({ after: cp, limit: 7 });
          if (page.length === 0) return all;
          all.push(...page);
          cp = page[page.length - 1]!.checkpoint;
        }
      }

      it('pages through every event exactly once', async () => {
        const s = uniqueStream();
        await store.append(
          s,
          Array.from({ length: 20 }, (_, i) => ev(i)),
          { expectedVersion: 'no_stream' },
        );
        const all = await readEverything();
        const ids = all.map((e) => e.eventId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(all.filter((e) => e.streamId === s).map((e) => e.streamVersion)).toEqual(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      });

      it('never skips an event while concurrent appenders commit out of order', async () => {
        const start = (await store.readAll({ limit: 100_000 })).at(-1)?.checkpoint;
        const writers = 8;
        const perWriter = 40;
        const streams = Array.from({ length: writers }, () => uniqueStream());
        const seen: StoredEvent[] = [];
        const ours = () => seen.filter((e) => streams.includes(e.streamId));
        // The reader runs until it has seen every event or gives up: an event it skipped never comes back,
        // while one held back by a transaction still open elsewhere in the database arrives later.
        const reader = (async () => {
          let cp = start;
          const deadline = Date.now() + 30_000;
          while (ours().length < writers * perWriter && Date.now() < deadline) {
            const page = await store.readAll({ after: cp, limit: 50 });
            seen.push(...page);
            if (page.length) cp = page[page.length - 1]!.checkpoint;
            else await new Promise((r) => setTimeout(r, 2));
          }
        })();
        await Promise.all(
          streams.map(async (s) => {
            for (let i = 0; i < perWriter; i++)
              await store.append(s, [ev(i)], { expectedVersion: i === 0 ? 'no_stream' : i });
          }),
        );
        await reader;
        expect(ours()).toHaveLength(writers * perWriter);
        expect(new Set(ours().map((e) => e.eventId)).size).toBe(writers * perWriter);
      }, 60_000);
    });
  });
}
