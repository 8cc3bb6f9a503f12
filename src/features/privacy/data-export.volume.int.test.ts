import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { readZip } from '../../../test/support/zip-reader.ts';
import type { NewEvent } from '../../kernel/es/event.ts';

const EVENTS = 20_000;
const BATCH = 1_000;
let t: TestApp;
let user: string;
let userId: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.setup();
  user = await createUser(t, 'busy@example.com', 'Busy-pass-123456', { main: 'editor' });
  userId = (await t.call({ method: 'GET', url: '/api/v1/auth/me', as: user })).json().data.id;
  // Straight into the log, a thousand per append: many pages of the subject's events, spread over streams.
  for (let b = 0; b < EVENTS / BATCH; b++) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, b)).toISOString();
    const metadata = {
      siteId: 'main',
      actor: { type: 'user' as const, id: userId },
      correlationId: `batch-${b}`,
      causationId: null,
      requestId: null,
      occurredAt: at,
    };
    const events: NewEvent[] = Array.from({ length: BATCH }, (_, i) => ({
      type: 'BulkNoteWritten',
      data: { n: b * BATCH + i, at },
      metadata,
    }));
    await t.deps.store.appendMany([{ streamId: `main/bulk-note/${b}`, events, expectedVersion: 'no_stream' }]);
  }
}, 300_000);
afterAll(() => t.close());

describe('GET /api/v1/me/data-export of a long history', () => {
  it('holds every one of the subject’s events, in log order', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/me/data-export', as: user });
    expect(res.statusCode).toBe(200);
    const events = (res.json().parts.events as { type: string; data: { n: number } }[]).filter(
      (e) => e.type === 'BulkNoteWritten',
    );
    expect(events).toHaveLength(EVENTS);
    expect(events.every((e, i) => e.data.n === i)).toBe(true);
  });

  it('holds them in the zip too', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/me/data-export?format=zip', as: user });
    expect(res.statusCode).toBe(200);
    const events = JSON.parse(readZip(res.rawPayload).get('events.json')!.toString('utf8')) as { type: string }[];
    expect(events.filter((e) => e.type === 'BulkNoteWritten')).toHaveLength(EVENTS);
  });
});
