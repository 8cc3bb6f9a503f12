import { runTypegenCli, TYPEGEN_USAGE } from './features/typegen/index.ts';

const USAGE = `usage: npm run svc -- projections list
       npm run svc -- projections rebuild <name>
       ${TYPEGEN_USAGE.replace(/^usage: /, '').replace(/\n/g, '\n       ')}`;

/** Operator commands: `typegen` asks a running service over HTTP; `projections` work on the configured database. */
async function cli(args: string[]): Promise<number> {
  if (args[0] === 'typegen') {
    return runTypegenCli(args.slice(1), {
      fetch: globalThis.fetch,
      env: process.env,
      cwd: process.cwd(),
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    });
  }
  return projections(args);
}

/** Lists or rebuilds projections (the server must be stopped in embedded mode). */
async function projections(args: string[]): Promise<number> {
  const [area, action, name] = args;
  if (area !== 'projections' || !['list', 'rebuild'].includes(action ?? '')) {
    console.error(USAGE);
    return 2;
  }
  const [{ default: pino }, { loadConfig }, { startRuntime }, { databaseFromConfig }] = await Promise.all([
    import('pino'),
    import('./config.ts'),
    import('./runtime.ts'),
    import('./adapters/load.ts'),
  ]);
  const config = loadConfig();
  const log = pino({ level: 'warn' });
  const database = await databaseFromConfig(config);
  const runtime = await startRuntime(config, database, log, { asyncWorker: false });
  try {
    const { engine } = runtime.deps;
    if (action === 'list') {
      console.table(await engine.status());
      return 0;
    }
    if (!name || !engine.get(name)) {
      console.error(`unknown projection ${name ?? ''}; known: ${engine.projectors.map((p) => p.name).join(', ')}`);
      return 2;
    }
    const t = Date.now();
    const status = await engine.rebuild(name);
    console.log(
      `rebuilt ${name} v${status.version} in ${Date.now() - t} ms (checkpoint ${status.checkpoint ?? 'none'})`,
    );
    return 0;
  } finally {
    await runtime.stop();
    await database.close();
  }
}

cli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
