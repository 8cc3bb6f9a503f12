import cluster from 'node:cluster';
import pino from 'pino';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { bootstrap } from './bootstrap.ts';
import { runPrimary } from './cluster.ts';
import { databaseFromConfig } from './adapters/load.ts';
import { startRuntime } from './runtime.ts';

/** config → database → runtime (projections, workers) → bootstrap → HTTP; SIGTERM drains and closes. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.LOG_LEVEL });
  // SVC_WORKERS > 1: this process only starts and watches the workers, which run everything below.
  if (config.SVC_WORKERS > 1 && cluster.isPrimary) return runPrimary(config.SVC_WORKERS, log);
  const database = await databaseFromConfig(config);
  const runtime = await startRuntime(config, database, log);
  await bootstrap(runtime.deps, log);
  const app = await buildApp(runtime.deps);
  await app.listen({ port: config.PORT, host: config.HOST });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown timed out');
      process.exit(1);
    }, config.SVC_SHUTDOWN_TIMEOUT_MS);
    force.unref();
    await app.close();
    await runtime.stop();
    await database.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
