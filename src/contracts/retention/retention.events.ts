import type { DomainEvent } from '../../kernel/es/event.ts';

/** The horizon a run applied to one kind: rows that ended before `before` (its time less `days`) were pruned. */
export interface AppliedHorizon {
  days: number;
  source: 'site' | 'env' | 'default';
  before: string;
}

/**
 * Read-model rows past their horizons were pruned on a site (or, for `_system`, the instance's own kinds). The
 * keys of `counts` and `horizons` are kind names of the service's catalogue, in null-prototype records.
 */
export type RetentionRun = DomainEvent<
  'RetentionRun',
  { siteId: string; at: string; counts: Record<string, number>; horizons: Record<string, AppliedHorizon> }
>;

export type RetentionEvent = RetentionRun;

/** One stream per site holds its runs; `_system/retention/_system` the instance's. */
export const retentionStream = (siteId: string) => `${siteId}/retention/${siteId}`;
