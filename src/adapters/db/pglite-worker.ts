import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/**
 * The embedded database's own thread: it owns the PGlite instance and runs the PostgreSQL wire protocol that the
 * serving thread's connection sends (adapters/db/pglite-thread.ts), batch by batch, in the order they come. Only
 * bytes cross: the messages a node-postgres client writes, and what the database answers to them.
 */

/** This module's address, which the thread is started on (a source file, or its own chunk of the build). */
export const PGLITE_WORKER_URL = import.meta.url;

/** What the thread opens: the data directory (null: in memory), or a dumped one to load. */
export interface PgliteWorkerData {
  svcPglite: true;
  dataDir: string | null;
  loadDataDir?: Uint8Array<ArrayBuffer>;
}

/** The serving thread's requests: protocol bytes to run, or the end. */
export type ToPgliteWorker = Uint8Array | 'close';

/** The thread's answers, one per request and in their order (`ready` first, once the database is open). */
export type FromPgliteWorker =
  { ready: true } | { chunks: Uint8Array[] } | { error: { message: string; stack?: string } } | { closed: true };

/** The answer to one batch of frontend messages: the backend messages, copied out of the WebAssembly memory. */
async function run(pglite: PGlite, bytes: Uint8Array): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  // The raw stream leaves parsing to the other side; `execProtocolRaw` would parse every answer here as well.
  await pglite.execProtocolRawStream(bytes, { onRawData: (data) => void chunks.push(data.slice()) });
  return chunks;
}

function failure(err: unknown): FromPgliteWorker {
  const e = err instanceof Error ? err : new Error(String(err));
  return { error: { message: e.message, stack: e.stack } };
}

async function open(data: PgliteWorkerData): Promise<PGlite> {
  const pglite = new PGlite(data.dataDir ?? 'memory://', {
    extensions: { unaccent, pg_trgm },
    loadDataDir: data.loadDataDir ? new Blob([data.loadDataDir]) : undefined,
  });
  await pglite.waitReady;
  return pglite;
}

async function answer(pglite: PGlite, port: MessagePort, request: ToPgliteWorker): Promise<void> {
  if (request === 'close') {
    await pglite.close().catch(() => undefined);
    port.postMessage({ closed: true } satisfies FromPgliteWorker);
    port.close();
    return;
  }
  try {
    const chunks = await run(pglite, request);
    const reply: FromPgliteWorker = { chunks };
    port.postMessage(
      reply,
      chunks.map((c) => c.buffer as ArrayBuffer),
    );
  } catch (err) {
    port.postMessage(failure(err));
  }
}

async function serve(port: MessagePort, data: PgliteWorkerData): Promise<void> {
  let pglite: PGlite;
  try {
    pglite = await open(data);
  } catch (err) {
    port.postMessage(failure(err));
    port.close();
    return;
  }
  // One batch at a time, in arrival order: PGlite is one session, and a transaction's statements must not interleave.
  let queue = Promise.resolve();
  port.on('message', (request: ToPgliteWorker) => {
    queue = queue.then(() => answer(pglite, port, request));
  });
  port.postMessage({ ready: true } satisfies FromPgliteWorker);
}

const started = workerData as Partial<PgliteWorkerData> | undefined;
if (!isMainThread && parentPort && started?.svcPglite) void serve(parentPort, started as PgliteWorkerData);
