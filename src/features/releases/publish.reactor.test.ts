import { describe, expect, it } from 'vitest';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import type { ReleaseRecord } from '../../../projections/releases/index.ts';
import { publishRequests } from './publish.reactor.ts';
import { REQUEST_STALE_MS } from './release.decider.ts';
import { REFUSED_RETRY_MS, requestFor } from './scheduler.ts';
import type { ReleasePublishRequested, ReleaseState } from '../../contracts/releases/release.events.ts';

const request = {
  type: 'ReleasePublishRequested',
  data: { releaseId: 'r1', reason: 'due', at: '2026-06-01T10:00:00.000Z' },
  siteId: 'main',
} as StoredEventOf<ReleasePublishRequested>;

const release = (over: Partial<Extract<ReleaseState, { exists: true }>> = {}): ReleaseRecord => ({
  exists: true,
  deleted: false,
  name: 'R',
  atomicityMode: 'all_or_nothing',
  publishAt: '2026-06-01T09:00:00.000Z',
  maintenanceWindow: null,
  status: 'scheduled',
  items: [{ collection: 'posts', itemId: 'p1', targetStatus: 'published' }],
  publishing: null,
  outcomes: [],
  publishRequested: null,
  lastRefusal: null,
  id: 'r1',
  createdAt: '2026-06-01T08:00:00.000Z',
  updatedAt: '2026-06-01T08:00:00.000Z',
  ...over,
});

describe('the release publisher', () => {
  it('publishes a release whose request waits for an answer, on the site of the request', () => {
    expect(publishRequests(request, release({ publishRequested: request.data.at }))).toEqual([
      { type: 'PublishRelease', siteId: 'main', releaseId: 'r1' },
    ]);
  });

  it('does nothing when the log answered the request already (published, refused) or the release is gone', () => {
    expect(publishRequests(request, release({ status: 'published' }))).toEqual([]);
    expect(publishRequests(request, release({ lastRefusal: { code: 'EMPTY_RELEASE', at: request.data.at } }))).toEqual(
      [],
    );
    expect(publishRequests(request, release({ publishRequested: request.data.at, deleted: true }))).toEqual([]);
    expect(publishRequests(request, { exists: false })).toEqual([]);
  });
});

describe('the content scheduler', () => {
  const now = new Date('2026-06-01T10:00:00Z'); // a Monday

  it('asks for a due release, and to finish one a crash cut off', () => {
    expect(requestFor(release(), now)).toBe('due');
    expect(requestFor(release({ publishing: { items: [], outcomes: [], by: 'u' } }), now)).toBe('resume');
  });

  it('does not ask twice while a request waits for its answer, but asks again once the publisher gave it up', () => {
    expect(requestFor(release({ publishRequested: now.toISOString() }), now)).toBeNull();
    const givenUp = new Date(now.getTime() - REQUEST_STALE_MS).toISOString();
    expect(requestFor(release({ publishRequested: givenUp }), now)).toBe('due');
  });

  it('asks again for a refused release only after the retry time', () => {
    const refusedAt = (ms: number) => ({ code: 'EMPTY_RELEASE', at: new Date(now.getTime() - ms).toISOString() });
    expect(requestFor(release({ lastRefusal: refusedAt(1000) }), now)).toBeNull();
    expect(requestFor(release({ lastRefusal: refusedAt(REFUSED_RETRY_MS) }), now)).toBe('due');
  });

  it('doubles the wait with each refusal in a row, up to a day', () => {
    const refused = (times: number, ms: number) => ({
      lastRefusal: { code: 'EMPTY_RELEASE', at: new Date(now.getTime() - ms).toISOString(), times },
    });
    expect(requestFor(release(refused(3, 4 * REFUSED_RETRY_MS - 1)), now)).toBeNull();
    expect(requestFor(release(refused(3, 4 * REFUSED_RETRY_MS)), now)).toBe('due');
    expect(requestFor(release(refused(40, 24 * 3600_000 - 1)), now)).toBeNull();
    expect(requestFor(release(refused(40, 24 * 3600_000)), now)).toBe('due');
  });

  it('waits for the maintenance window, except to finish a publish that runs', () => {
    const closed = { windows: [{ dow: 2, start: '22:00', end: '23:00' }] };
    expect(requestFor(release({ maintenanceWindow: closed }), now)).toBeNull();
    const running = { items: [], outcomes: [], by: 'u' };
    expect(requestFor(release({ maintenanceWindow: closed, publishing: running }), now)).toBe('resume');
  });
});
