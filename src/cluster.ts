import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

const RESTART_MS = 1000;

/**
 * The primary of SVC_WORKERS server processes on one machine (node:cluster; the workers share the port). The first
 * worker starts alone, so that migrations and projection setup run once, then the others; a worker that dies is
 * started again after a second. The leader loops (reactors, scheduler, async projections) hold PostgreSQL
 * locks, so they run in one process of all the nodes whatever the count. SIGTERM/SIGINT go to every worker, and the
 * primary ends when they have.
 */
export async function runPrimary(workers: number, log: Logger): Promise<void> {
  let stopping = false;
  const live = new Set<Worker>();
  const fork = () =>
    new Promise<Worker>((resolve, reject) => {
      const w = cluster.fork();
      live.add(w);
      w.once('listening', () => resolve(w));
      w.once('exit', (code, signal) => {
        live.delete(w);
        if (stopping) return;
        log.error({ pid: w.process.pid, code, signal }, 'a worker ended; starting another');
        reject(new Error(`worker ${w.process.pid} ended before listening (${code ?? signal})`));
        setTimeout(() => void fork().catch(() => undefined), RESTART_MS).unref();
      });
    });
  await fork();
  await Promise.all(Array.from({ length: workers - 1 }, fork));
  log.info({ workers }, 'listening with several processes');
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const w of live) w.process.kill(signal);
    const done = () => live.size === 0 && process.exit(0);
    cluster.on('exit', done);
    done();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
