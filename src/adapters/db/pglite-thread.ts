import { Worker } from 'node:worker_threads';
import type { FromPgliteWorker, PgliteWorkerData, ToPgliteWorker } from './pglite-worker.ts';

interface Waiting {
  resolve(chunks: Uint8Array[]): void;
  reject(err: Error): void;
}

/** A message posted before the thread dies answers with this error: the database is gone, not the statement wrong. */
class PgliteThreadDown extends Error {
  override name = 'PgliteThreadDown';
}

/**
 * The embedded database on a thread of its own (adapters/db/pglite-worker.ts): `exec` posts protocol bytes and
 * resolves with the answer, in the order of the calls. While nothing is waiting the thread does not keep the process
 * alive, as the database inside the process did not.
 */
export class PgliteThread {
  readonly #worker: Worker;
  readonly #waiting: Waiting[] = [];
  #down: Error | null = null;
  #closing: Promise<void> | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (m: FromPgliteWorker) => this.#answer(m));
    worker.on('error', (err) => this.#died(err));
    worker.on('exit', (code) => this.#died(new PgliteThreadDown(`the embedded database's thread exited (${code})`)));
    worker.unref();
  }

  /** Starts the thread and opens the database in it; rejects with the database's own error when it cannot open. */
  static async start(data: Omit<PgliteWorkerData, 'svcPglite'>): Promise<PgliteThread> {
    const { PGLITE_WORKER_URL } = await import('./pglite-worker.ts');
    const worker = spawn(new URL(PGLITE_WORKER_URL), { svcPglite: true, ...data });
    try {
      await ready(worker);
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    return new PgliteThread(worker);
  }

  /** Runs one batch of frontend messages; `bytes` is handed over (its buffer is transferred). */
  exec(bytes: Uint8Array): Promise<Uint8Array[]> {
    if (this.#down) return Promise.reject(this.#down);
    return new Promise<Uint8Array[]>((resolve, reject) => {
      if (this.#waiting.push({ resolve, reject }) === 1) this.#worker.ref();
      this.#worker.postMessage(bytes satisfies ToPgliteWorker, [bytes.buffer as ArrayBuffer]);
    });
  }

  /** Closes the database (after every batch posted before) and ends the thread. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (!this.#down) {
      const closed = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
      this.#worker.ref();
      this.#worker.postMessage('close' satisfies ToPgliteWorker);
      await closed;
    }
    await this.#worker.terminate();
  }

  #answer(m: FromPgliteWorker): void {
    if ('closed' in m || 'ready' in m) return;
    const waiting = this.#waiting.shift();
    if (this.#waiting.length === 0) this.#worker.unref();
    if (!waiting) return;
    if ('chunks' in m) waiting.resolve(m.chunks);
    else waiting.reject(Object.assign(new Error(m.error.message), { stack: m.error.stack }));
  }

  /**
   * The thread ended: what waits fails, and later statements fail at once. Unless it was closed, the error is thrown
   * on this thread too (an uncaught one, which ends the process): with the database inside the process, what kills
   * the thread would have ended the process, and the service cannot go on without its database.
   */
  #died(err: Error): void {
    const first = !this.#down;
    this.#down ??= this.#closing ? new PgliteThreadDown('the embedded database is closed') : err;
    for (const w of this.#waiting.splice(0)) w.reject(this.#down);
    if (first && !this.#closing)
      process.nextTick(() => {
        throw err;
      });
  }
}

/**
 * The thread runs the worker module: the build's chunk as it is, a source file through tsx's loader
 * (pglite-worker-tsx.mjs: a thread does not inherit the process's TypeScript loader on Node 20, tsx's nor vitest's).
 */
function spawn(url: URL, data: PgliteWorkerData): Worker {
  const transferList = data.loadDataDir ? [data.loadDataDir.buffer] : [];
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData: data, transferList });
  const workerData = { ...data, svcPgliteModule: url.href };
  return new Worker(new URL('./pglite-worker-tsx.mjs', import.meta.url), { workerData, transferList });
}

/** Resolves once the thread has opened the database; rejects with its error, or when it dies first. */
function ready(worker: Worker): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      worker.off('message', onMessage).off('error', done).off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onMessage = (m: FromPgliteWorker) =>
      done('error' in m ? Object.assign(new Error(m.error.message), { stack: m.error.stack }) : undefined);
    const onExit = (code: number) => done(new PgliteThreadDown(`the embedded database's thread exited (${code})`));
    worker.on('message', onMessage).on('error', done).on('exit', onExit);
  });
}
