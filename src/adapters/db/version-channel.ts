import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { VersionChannel } from '../../platform/es/version-cache.ts';

const RETRY_MS = 1000;

/** One channel per schema, its name a digest (a schema name may be longer than a channel name, or not ASCII). */
const channelOf = (schema: string) => `svc_versions_${createHash('sha256').update(schema).digest('hex').slice(0, 32)}`;

/**
 * Stream versions between the nodes of a PostgreSQL deployment over LISTEN/NOTIFY. One connection of its own
 * listens; a message is `<version> <streamId>` on a channel named after (a digest of) the schema, so deployments
 * (or test files) that share a database in schemas of their own do not hear each other. While the listening connection is down
 * the channel is not live (readers go to the database); when it is back, the caches are reset, as messages may
 * have been lost in between.
 */
export class PgVersionChannel implements VersionChannel {
  private client: pg.Client | null = null;
  private channel: string | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private handlers: { onVersion: (s: string, v: number) => void; onReset: () => void } | null = null;
  live = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log?: Logger,
  ) {}

  /** Names the channel, connects and listens; resolves once messages arrive (or the first attempt failed: it retries). */
  async start(): Promise<void> {
    // Named before listening, so that this node tells the others of its writes even while it cannot listen.
    this.channel ??= await this.pool
      .query<{ s: string }>('select current_schema() as s')
      .then((r) => channelOf(r.rows[0]!.s))
      .catch(() => null);
    await this.connect();
  }

  listen(onVersion: (s: string, v: number) => void, onReset: () => void): void {
    this.handlers = { onVersion, onReset };
  }

  /** The message that says "the log grew" (no space in it, so never read as a version). */
  private static readonly LOG = 'log';
  private readonly logListeners = new Set<() => void>();

  private poking = false;

  /** Tells the other nodes that this one appended: one message per 10 ms at most, whatever the appends. */
  pokeLog(): void {
    if (!this.channel || this.poking) return;
    this.poking = true;
    setTimeout(() => {
      this.poking = false;
      if (this.closed || !this.channel) return;
      this.pool
        .query('select pg_notify($1, $2)', [this.channel, PgVersionChannel.LOG])
        .catch((err: Error) => this.log?.warn({ err: err.message }, 'could not tell the other nodes of an append'));
    }, 10).unref();
  }

  onLog(listener: () => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  publish(streamId: string, version: number): void {
    if (!this.channel) return;
    this.pool
      .query('select pg_notify($1, $2)', [this.channel, `${version} ${streamId}`])
      .catch((err: Error) => this.log?.warn({ err: err.message }, 'could not tell the other nodes of a version'));
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.pool.options);
    client.on('error', () => this.down(client));
    client.on('end', () => this.down(client));
    client.on('notification', (m) => {
      const payload = m.payload ?? '';
      if (payload === PgVersionChannel.LOG) {
        for (const l of this.logListeners) l();
        return;
      }
      const space = payload.indexOf(' ');
      const version = Number(payload.slice(0, space));
      if (space > 0 && Number.isSafeInteger(version)) this.handlers?.onVersion(payload.slice(space + 1), version);
    });
    try {
      await client.connect();
      const r = await client.query<{ s: string }>('select current_schema() as s');
      this.channel = channelOf(r.rows[0]!.s);
      await client.query(`listen ${client.escapeIdentifier(this.channel)}`);
      this.client = client;
      // Whatever was cached while no message could arrive may be stale.
      this.handlers?.onReset();
      this.live = true;
    } catch (err) {
      this.log?.warn({ err: (err as Error).message }, 'version channel: cannot listen; retrying');
      client.end().catch(() => undefined);
      this.schedule();
    }
  }

  private down(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.live = false;
    this.handlers?.onReset();
    client.end().catch(() => undefined);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, RETRY_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
