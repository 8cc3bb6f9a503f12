import { describe, expect, it } from 'vitest';
import {
  base64UrlBytes,
  mergeInbox,
  payloadOf,
  pushOffer,
  unhandledCount,
  type InboxEntry,
} from '../../studio/src/inbox.ts';

const note = (id: string, ts: string) => ({
  id,
  kind: 'run',
  severity: 'info' as const,
  title: `note ${id}`,
  body: '',
  deepLink: null,
  entityId: null,
  ts,
});
const entry = (id: string, ts: string, handled = false): InboxEntry => ({ ...note(id, ts), handled, handledAt: null });

describe('the inbox', () => {
  it('reads a frame’s payload, dropping a malformed one', () => {
    expect(payloadOf({ ...note('a', '2025-01-01T00:00:00Z'), severity: 'critical' })?.severity).toBe('critical');
    expect(payloadOf({ id: 'a', kind: 'run', title: 'x', ts: 't', severity: 'odd' })?.severity).toBe('info');
    expect(payloadOf({ id: 1, kind: 'run', title: 'x', ts: 't' })).toBeNull();
    expect(payloadOf('text')).toBeNull();
  });

  it('puts live arrivals on the first page only, once, newest first, with local handling applied', () => {
    const fetched = [entry('b', '2025-01-02T00:00:00Z'), entry('a', '2025-01-01T00:00:00Z')];
    const live = [note('c', '2025-01-03T00:00:00Z'), note('b', '2025-01-02T00:00:00Z')];
    expect(mergeInbox(fetched, live).map((n) => n.id)).toEqual(['c', 'b', 'a']);
    expect(mergeInbox(fetched, live, new Set(), false).map((n) => n.id)).toEqual(['b', 'a']);
    expect(mergeInbox(fetched, live, new Set(['c'])).find((n) => n.id === 'c')?.handled).toBe(true);
  });

  it('counts the unhandled: the API’s total, live arrivals it did not count, less those handled here', () => {
    expect(unhandledCount(2, ['a', 'b'], [])).toBe(2);
    expect(unhandledCount(2, ['a', 'b'], [note('b', 't'), note('c', 't')])).toBe(3);
    expect(unhandledCount(2, ['a', 'b'], [note('c', 't')], new Set(['a', 'c']))).toBe(1);
    expect(unhandledCount(0, [], [], new Set(['x']))).toBe(0);
  });

  it('offers Web Push only with a key, and says when the browser cannot', () => {
    const all = { serviceWorker: true, pushManager: true, notification: true, secure: true };
    expect(pushOffer(null, all)).toBe('off');
    expect(pushOffer('key', all)).toBe('available');
    expect(pushOffer('key', { ...all, pushManager: false })).toBe('unsupported');
    expect(pushOffer('key', { ...all, secure: false })).toBe('unsupported');
  });

  it('decodes a base64url VAPID key', () => {
    expect([...base64UrlBytes('AP8-_w')]).toEqual([0, 255, 62, 255]);
  });
});
