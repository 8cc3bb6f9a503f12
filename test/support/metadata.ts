import type { EventMetadata } from '../../src/kernel/es/event.ts';

/** Metadata of a system-made event on `siteId`, for tests that append to a store directly. */
export const systemMetadata = (siteId: string): EventMetadata => ({
  siteId,
  actor: { type: 'system', id: 't' },
  correlationId: 'c',
  causationId: null,
  requestId: null,
  occurredAt: new Date().toISOString(),
});
