import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { SERVER_BUILD } from './server-build.ts';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  output(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * Starts the compiled server (test/setup/global.ts builds it; or the node arguments `args`) as a child process and
 * waits until /health answers, at most `startupMs` (a loaded two-core machine can take more than the default minute
 * to start the embedded database).
 */
export async function startServer(
  env: Record<string, string>,
  startupMs = 60_000,
  args = ['--enable-source-maps', path.join(SERVER_BUILD, 'main.mjs')],
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      JWT_SECRET: 'process-test-secret-process-test-secret',
      // Load and fault tests send far more than a person would; a test of the throttle turns it back on.
      SVC_RATE_LIMIT_DISABLED: 'true',
      // On a loaded two-core machine an embedded database can hold the loop past a second: not what these test.
      SVC_PRESSURE_LIMITER_ENABLED: 'false',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startupMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${out}`);
    const ok = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, url, exited, output: () => out };
}
