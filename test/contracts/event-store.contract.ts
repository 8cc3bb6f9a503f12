import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMetadata, NewEvent, StoredEvent } from '../../src/kernel/es/event.ts';
import { collect, WrongExpectedVersion, type EventStore } from '../../src/kernel/es/event-store.ts';
import { Upcasters } from '../../src/kernel/es/upcast.ts';

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

/**
 * The upcasters every subject is opened with: `ThingRenamed` v1 `{ name }` became v2 `{ title }`, and the retired
 * type `ThingNamedOld` became `ThingRenamed` v2.
 */
export const contractUpcasters = (): Upcasters =>
  new Upcasters().register(
    { type: 'ThingRenamed', fromVersion: 1, up: (d) => ({ title: (d as { name: string }).name }) },
    { type: 'ThingNamedOld', fromVersion: 1, toType: 'ThingRenamed', toVersion: 2, up: (d) => d },
  );

/** The behaviour every event-store adapter must have (DESIGN §3); each adapter's test file runs it. */
export function eventStoreContract(
  name: string,
  open: (opts: { upcasters: Upcasters }) => Promise<ContractSubject>,
  traits: { multiStreamAtomic: boolean } = { multiStreamAtomic: true },
): void {
  describe(`${name} event store contract`, () => {
    let subject: ContractSubject;
    let store: EventStore;
    beforeAll(async () => {
      subject = await open({ upcasters: contractUpcasters() });
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

    describe('appendMany', () => {
      it('appends to several streams, each at its expected version', async () => {
        const a = uniqueStream();
        const b = uniqueStream();
        await store.append(a, [ev(1)], { expectedVersion: 'no_stream' });
        const res = await store.appendMany([
          { streamId: a, events: [ev(2), ev(3)], expectedVersion: 1 },
          { streamId: b, events: [ev(1)], expectedVersion: 'no_stream' },
        ]);
        expect(res.map((r) => r.nextExpectedVersion)).toEqual([3, 1]);
        expect((await read(a)).map((e) => e.streamVersion)).toEqual([1, 2, 3]);
        expect((await read(b)).map((e) => e.streamVersion)).toEqual([1]);
      });

      it.runIf(traits.multiStreamAtomic)('writes none of the streams when one expected version is wrong', async () => {
        const a = uniqueStream();
        const b = uniqueStream();
        await store.append(b, [ev(1)], { expectedVersion: 'no_stream' });
        await expect(
          store.appendMany([
            { streamId: a, events: [ev(1)], expectedVersion: 'no_stream' },
            { streamId: b, events: [ev(2)], expectedVersion: 5 },
          ]),
        ).rejects.toBeInstanceOf(WrongExpectedVersion);
        expect(await read(a)).toEqual([]);
        expect((await read(b)).map((e) => e.streamVersion)).toEqual([1]);
        // (Not a count of the whole log: on a shared database another test's open transaction can hold back what
        // the global reader sees, so a count taken twice may differ without anything wrong here.)
        expect(await store.streamVersion(a)).toBeNull();
        expect(await store.streamVersion(b)).toBe(1);
      });

      it.runIf(traits.multiStreamAtomic)(
        'writes none of a batch of new streams when one of them exists already, in one statement or not',
        async () => {
          const [a, b, c] = [uniqueStream(), uniqueStream(), uniqueStream()];
          await store.append(b, [ev(1)], { expectedVersion: 'no_stream' });
          const err = await store
            .appendMany(
              [a, b, c].map((streamId) => ({ streamId, events: [ev(2), ev(3)], expectedVersion: 'no_stream' })),
            )
            .catch((e: unknown) => e);
          expect(err).toBeInstanceOf(WrongExpectedVersion);
          expect((err as WrongExpectedVersion).streamId).toBe(b);
          expect(await store.streamVersion(a)).toBeNull();
          expect(await store.streamVersion(c)).toBeNull();
          expect((await read(b)).map((e) => e.streamVersion)).toEqual([1]);
          // A batch of new streams lands whole: each stream's versions from 1, each event's data in place.
          const many = Array.from({ length: 50 }, () => uniqueStream());
          const res = await store.appendMany(
            many.map((streamId, i) => ({ streamId, events: [ev(i), ev(i + 100)], expectedVersion: 'no_stream' })),
          );
          expect(res.map((r) => r.nextExpectedVersion)).toEqual(many.map(() => 2));
          expect(res[7]!.events.map((e) => [e.streamId, e.streamVersion, e.data])).toEqual([
            [many[7], 1, { n: 7 }],
            [many[7], 2, { n: 107 }],
          ]);
          expect((await read(many[49]!)).map((e) => e.data)).toEqual([{ n: 49 }, { n: 149 }]);
        },
      );

      it('puts a batch in the global order whole, in the order of its streams', async () => {
        const [a, b] = [uniqueStream(), uniqueStream()];
        await store.appendMany([
          { streamId: a, events: [ev(1), ev(2)], expectedVersion: 'no_stream' },
          { streamId: b, events: [ev(3)], expectedVersion: 'no_stream' },
        ]);
        const seen = await globalEventsOf([a, b], 3);
        expect(seen.map((e) => [e.streamId, e.data])).toEqual([
          [a, { n: 1 }],
          [a, { n: 2 }],
          [b, { n: 3 }],
        ]);
      });

      it.runIf(traits.multiStreamAtomic)(
        'never shows the global-order reader part of a batch while batches commit',
        async () => {
          const start = (await store.headPosition()) ?? undefined;
          const batches = Array.from({ length: 12 }, (_, i) =>
            [uniqueStream(), uniqueStream(), uniqueStream()].map((streamId) => ({
              streamId,
              events: [ev(i)],
              expectedVersion: 'no_stream' as const,
            })),
          );
          const batchOf = new Map(batches.flatMap((b, i) => b.map((r) => [r.streamId, i] as const)));
          let done = false;
          const writing = Promise.all(batches.map((b) => store.appendMany(b))).finally(() => (done = true));
          const polls: number[][] = [];
          while (!done) {
            const counts = new Array<number>(batches.length).fill(0);
            for (const e of await store.readAll({ after: start, limit: 100_000 })) {
              const i = batchOf.get(e.streamId);
              if (i !== undefined) counts[i]! += 1;
            }
            polls.push(counts);
          }
          await writing;
          // Read on until every batch is seen whole (another test's open append can hold them back a moment).
          const deadline = Date.now() + 30_000;
          do {
            const counts = new Array<number>(batches.length).fill(0);
            for (const e of await store.readAll({ after: start, limit: 100_000 })) {
              const i = batchOf.get(e.streamId);
              if (i !== undefined) counts[i]! += 1;
            }
            polls.push(counts);
          } while (polls.at(-1)!.some((n) => n !== 3) && Date.now() < deadline);
          for (const counts of polls) for (const n of counts) expect([0, 3]).toContain(n);
          expect(polls.at(-1)).toEqual(new Array<number>(batches.length).fill(3));
        },
      );

      it('keeps each concurrent writer apart: failures fail alone, successes all land', async () => {
        const streams = Array.from({ length: 30 }, () => uniqueStream());
        const results = await Promise.allSettled(
          streams.map((s, i) => store.append(s, [ev(i)], { expectedVersion: i % 3 === 0 ? 7 : 'no_stream' })),
        );
        results.forEach((r, i) => {
          if (i % 3 === 0) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersion);
          else expect(r.status).toBe('fulfilled');
        });
        for (const [i, s] of streams.entries())
          expect((await read(s)).map((e) => e.data)).toEqual(i % 3 === 0 ? [] : [{ n: i }]);
      });
    });

    describe('onAppended', () => {
      it('tells listeners of committed appends only, with their stored events', async () => {
        const seen: StoredEvent[][] = [];
        const off = store.onAppended((events) => seen.push([...events]));
        try {
          const stream = uniqueStream();
          await store.append(stream, [ev(1), ev(2)], { expectedVersion: 'no_stream' });
          await expect(store.append(stream, [ev(3)], { expectedVersion: 0 })).rejects.toBeInstanceOf(
            WrongExpectedVersion,
          );
          const mine = seen.filter((b) => b.some((e) => e.streamId === stream));
          expect(mine).toHaveLength(1);
          expect(mine[0]!.map((e) => [e.streamVersion, (e.data as { n: number }).n])).toEqual([
            [1, 1],
            [2, 2],
          ]);
        } finally {
          off();
        }
        const stream = uniqueStream();
        await store.append(stream, [ev(1)], { expectedVersion: 'no_stream' });
        expect(seen.some((b) => b.some((e) => e.streamId === stream))).toBe(false);
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
      /** Pages of seven until `done` holds of what was read (another test's open append can hold events back). */
      async function readEverything(done: (all: StoredEvent[]) => boolean): Promise<StoredEvent[]> {
        const all: StoredEvent[] = [];
        const deadline = Date.now() + 30_000;
        for (let cp: string | undefined; !done(all) && Date.now() < deadline;) {
          const page = await store.readAll({ after: cp, limit: 7 });
          all.push(...page);
          if (page.length) cp = page[page.length - 1]!.checkpoint;
          else await new Promise((r) => setTimeout(r, 10));
        }
        return all;
      }

      it('pages through every event exactly once', async () => {
        const s = uniqueStream();
        await store.append(
          s,
          Array.from({ length: 20 }, (_, i) => ev(i)),
          { expectedVersion: 'no_stream' },
        );
        const all = await readEverything((read) => read.filter((e) => e.streamId === s).length >= 20);
        const ids = all.map((e) => e.eventId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(all.filter((e) => e.streamId === s).map((e) => e.streamVersion)).toEqual(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      });

      it('never skips an event while concurrent appenders commit out of order', async () => {
        const start = (await store.headPosition()) ?? undefined;
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

    describe('scanAll', () => {
      it('answers only the events of the types asked, in global order, and how far it looked', async () => {
        const wanted = `Scanned${randomUUID().replaceAll('-', '')}`;
        const start = (await store.headPosition()) ?? undefined;
        const s = uniqueStream();
        await store.append(s, [ev(1), { ...ev(2), type: wanted }, ev(3), { ...ev(4), type: wanted }, ev(5)], {
          expectedVersion: 'no_stream',
        });
        // Read on until the five are looked at (another test's open append can hold them back a moment).
        const last = (await read(s)).at(-1)!;
        const found: StoredEvent[] = [];
        let through: string | null = null;
        let scanned = 0;
        const deadline = Date.now() + 30_000;
        for (let cp = start; Date.now() < deadline;) {
          const scan = await store.scanAll({ ...(cp ? { after: cp } : {}), limit: 2, types: [wanted] });
          expect(scan.scanned).toBeLessThanOrEqual(2);
          expect(scan.events.every((e) => e.type === wanted)).toBe(true);
          found.push(...scan.events);
          scanned += scan.scanned;
          if (scan.through) cp = through = scan.through;
          else await new Promise((r) => setTimeout(r, 10));
          if (through && store.comparePositions(through, last.checkpoint) >= 0) break;
        }
        expect(found.map((e) => [e.streamId, e.streamVersion, e.data])).toEqual([
          [s, 2, { n: 2 }],
          [s, 4, { n: 4 }],
        ]);
        expect(scanned).toBeGreaterThanOrEqual(5);
        expect(store.comparePositions(through, last.checkpoint)).toBeGreaterThanOrEqual(0);
        // Past the head: nothing looked at, nowhere to move to.
        const head = await store.headPosition();
        const none = await store.scanAll({ ...(head ? { after: head } : {}), limit: 10, types: [wanted] });
        expect(none.through === null || store.comparePositions(none.through, head) > 0).toBe(true);
      });
    });

    /**
     * Streams' events as the global reader returns them. On a shared database another test's open transaction can
     * hold back what the reader sees for a moment, so it reads on until all `n` have come.
     */
    async function globalEventsOf(streamId: string | string[], n: number): Promise<StoredEvent[]> {
      const streams = Array.isArray(streamId) ? streamId : [streamId];
      const seen: StoredEvent[] = [];
      const deadline = Date.now() + 30_000;
      for (let cp: string | undefined; seen.length < n && Date.now() < deadline;) {
        const page = await store.readAll({ after: cp, limit: 1000 });
        seen.push(...page.filter((e) => streams.includes(e.streamId)));
        if (page.length) cp = page[page.length - 1]!.checkpoint;
        else await new Promise((r) => setTimeout(r, 10));
      }
      return seen;
    }

    describe('global log', () => {
      it('names its head and counts the events after a position', async () => {
        const s = uniqueStream();
        await store.append(s, [ev(1), ev(2), ev(3)], { expectedVersion: 'no_stream' });
        const mine = await globalEventsOf(s, 3);
        const head = await store.headPosition();
        expect(head).not.toBeNull();
        expect(store.comparePositions(head, mine[2]!.checkpoint)).toBeGreaterThanOrEqual(0);
        expect(await store.countAfter(mine[0]!.checkpoint)).toBeGreaterThanOrEqual(2);
        expect(await store.countAfter(head)).toBe(0);
        expect(await store.countAfter(null)).toBeGreaterThanOrEqual(3);
      });

      it('orders positions as the global order does, null first', async () => {
        const s = uniqueStream();
        await store.append(s, [ev(1), ev(2)], { expectedVersion: 'no_stream' });
        const [a, b] = await globalEventsOf(s, 2);
        expect(store.comparePositions(a!.checkpoint, b!.checkpoint)).toBeLessThan(0);
        expect(store.comparePositions(b!.checkpoint, a!.checkpoint)).toBeGreaterThan(0);
        expect(store.comparePositions(a!.checkpoint, a!.checkpoint)).toBe(0);
        expect(store.comparePositions(null, a!.checkpoint)).toBeLessThan(0);
        expect(store.comparePositions(null, null)).toBe(0);
      });
    });

    describe('schema versions and upcasting', () => {
      const named = (type: string, data: unknown, schemaVersion?: number): NewEvent => ({
        type,
        data,
        metadata: meta('contract'),
        ...(schemaVersion === undefined ? {} : { schemaVersion }),
      });

      it("stamps a new event with its type's current schema version, 1 for a type never changed", async () => {
        const s = uniqueStream();
        const res = await store.append(s, [named('ThingRenamed', { title: 'a' }), ev(1)], {
          expectedVersion: 'no_stream',
        });
        expect(res.events.map((e) => e.schemaVersion)).toEqual([2, 1]);
        expect((await read(s)).map((e) => [e.type, e.schemaVersion, e.data])).toEqual([
          ['ThingRenamed', 2, { title: 'a' }],
          ['ThingHappened', 1, { n: 1 }],
        ]);
      });

      it("reads an event stored in an old shape in today's, on every read path", async () => {
        const s = uniqueStream();
        const start = (await store.headPosition()) ?? undefined;
        const res = await store.append(
          s,
          [named('ThingRenamed', { name: 'old' }, 1), named('ThingNamedOld', { title: 'older' }, 1)],
          { expectedVersion: 'no_stream' },
        );
        const today = [
          ['ThingRenamed', 2, { title: 'old' }],
          ['ThingRenamed', 2, { title: 'older' }],
        ];
        const shape = (es: StoredEvent[]) => es.map((e) => [e.type, e.schemaVersion, e.data]);
        expect(shape(res.events)).toEqual(today);
        expect(shape(await read(s))).toEqual(today);
        expect(shape(await globalEventsOf(s, 2))).toEqual(today);
        // A scan for today's type finds the event stored under the older type too, in today's shape.
        const last = res.events.at(-1)!;
        const scanned: StoredEvent[] = [];
        let cp = start;
        for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
          const scan = await store.scanAll({ ...(cp ? { after: cp } : {}), limit: 500, types: ['ThingRenamed'] });
          scanned.push(...scan.events.filter((e) => e.streamId === s));
          if (scan.through) cp = scan.through;
          if (cp && store.comparePositions(cp, last.checkpoint) >= 0) break;
          if (!scan.through) await new Promise((r) => setTimeout(r, 10));
        }
        expect(shape(scanned)).toEqual(today);
      });
    });
  });
}
