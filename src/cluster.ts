import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

const RESTART_MS = 1000;
const RESTART_MAX_MS = 30_000;

/**
 * The primary of SVC_WORKERS server processes on one machine (node:cluster; the workers share the port). The first
 * worker starts alone, so that migrations and projection setup run once, then the others; a worker that dies is
 * started again, after a second that doubles while they keep dying (at most 30 s). The leader loops (reactors,
 * scheduler, async projections) hold PostgreSQL locks, so they run in one process of all the nodes whatever the
 * count. SIGTERM/SIGINT, from the start on, go to every worker and stop restarts; the primary ends when the workers
 * have, with 1 if one of them failed.
 */
export async function runPrimary(workers: number, log: Logger): Promise<void> {
  let stopping = false;
  let failed = false;
  let delay = RESTART_MS;
  const restarts = new Set<NodeJS.Timeout>();
  const live = new Set<Worker>();
  let stopped!: () => void;
  const whenStopped = new Promise<void>((resolve) => (stopped = resolve));

  const finish = () => {
    if (stopping && live.size === 0) process.exit(failed ? 1 : 0);
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stopped();
    for (const t of restarts) clearTimeout(t);
    restarts.clear();
    for (const w of live) w.process.kill(signal);
    finish();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const fork = () => {
    if (stopping) return;
    const w = cluster.fork();
    live.add(w);
    w.once('listening', () => (delay = RESTART_MS));
    w.once('exit', (code, signal) => {
      live.delete(w);
      if (stopping) {
        // Ended by the stop: a worker that could not finish cleanly makes the primary's exit a failure.
        if (code !== 0 && code !== null) failed = true;
        return finish();
      }
      log.error({ pid: w.process.pid, code, signal, restartInMs: delay }, 'a worker ended; starting another');
      const t = setTimeout(() => {
        restarts.delete(t);
        fork();
      }, delay);
      restarts.add(t);
      delay = Math.min(delay * 2, RESTART_MAX_MS);
    });
  };

  // The first alone (migrations, projection setup), started again until one listens; then the others.
  let listening = 0;
  const all = new Promise<void>((resolve) =>
    cluster.on('listening', () => {
      if (++listening === workers) resolve();
    }),
  );
  const first = new Promise<void>((resolve) => cluster.once('listening', () => resolve()));
  fork();
  await Promise.race([first, whenStopped]);
  if (stopping) return;
  for (let i = 1; i < workers; i++) fork();
  await Promise.race([all, whenStopped]);
  if (!stopping) log.info({ workers }, 'listening with several processes');
}
