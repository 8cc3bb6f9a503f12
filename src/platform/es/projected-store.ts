import type { Logger } from 'pino';
import type { NewEvent, StoredEvent } from '../../kernel/es/event.ts';
import {
  AppendListeners,
  ForwardingStore,
  type AppendListener,
  type AppendOptions,
  type AppendRequest,
  type AppendResult,
  type EventStore,
} from '../../kernel/es/event-store.ts';
import type { ProjectionSubscription } from './projection-subscription.ts';

/**
 * The store as the service sees it when the read models follow the log from a subscription: an append answers
 * once the subscription has projected its events, so the next read sees the write (read-your-writes), as with
 * inline projectors. The wait is bounded: past `waitMs` the append answers anyway and the delay is logged.
 * Append listeners hear of a write once it is projected (or the wait is over), as they do with inline projectors:
 * a cache of read-model rows that drops an entry on a write must not be refilled from the rows before it.
 */
export class ProjectedStore extends ForwardingStore {
  private readonly listeners = new AppendListeners();
  constructor(
    inner: EventStore,
    private readonly subscription: ProjectionSubscription,
    private readonly waitMs: number,
    private readonly log: Logger,
  ) {
    super(inner);
  }

  override async append(streamId: string, events: NewEvent[], opts: AppendOptions): Promise<AppendResult> {
    const started = performance.now();
    const result = await this.inner.append(streamId, events, opts);
    await this.projected([result], started);
    return result;
  }

  override async appendMany(batch: AppendRequest[]): Promise<AppendResult[]> {
    const started = performance.now();
    const results = await this.inner.appendMany(batch);
    await this.projected(results, started);
    return results;
  }

  private async projected(results: AppendResult[], started: number): Promise<void> {
    const seconds = (performance.now() - started) / 1000;
    await this.settle(results);
    this.listeners.notify(results, seconds);
  }

  private async settle(results: AppendResult[]): Promise<void> {
    if (this.waitMs <= 0) return;
    let last: StoredEvent | undefined;
    for (const e of results.flatMap((r) => r.events))
      if (!last || this.inner.comparePositions(e.checkpoint, last.checkpoint) > 0) last = e;
    if (!last) return;
    const waiting = Date.now();
    if (!(await this.subscription.waitFor(last.checkpoint, this.waitMs)))
      this.log.warn(
        { stream: last.streamId, position: last.checkpoint, waitedMs: Date.now() - waiting },
        'answered before the write was projected: a read right after it may not show it yet',
      );
  }

  override onAppended(listener: AppendListener): () => void {
    return this.listeners.add(listener);
  }
}
