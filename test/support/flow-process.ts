import { expect } from 'vitest';
import type { ServerProcess } from './server-process.ts';
import { loginTo } from './process-store.ts';

/** The setup admin of the flow fault tests' server processes. */
export const FLOW_ADMIN = { email: 'flows@example.com', password: 'Flow-fault-pass-1234' };
export const adminEnv = {
  SVC_ADMIN_EMAIL: FLOW_ADMIN.email,
  SVC_ADMIN_PASSWORD: FLOW_ADMIN.password,
  SVC_SITE_ID: 'main',
};

/** An answer's envelope; `data` is read as whatever the test expects of it. */
export type Body = { data: never; meta: { total: number } };
export type Call = (method: string, p: string, body?: unknown) => Promise<{ status: number; body: Body }>;

/** A JSON client of a server process, logged in as the setup admin, on the site `main`. */
export async function flowClient(server: ServerProcess): Promise<Call> {
  const token = await loginTo(server, FLOW_ADMIN);
  return async (method, p, body) => {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-svc-site': 'main',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Body };
  };
}

export interface RunStep {
  nodeId: string;
  status: string;
}
export interface Run {
  id: string;
  status: string;
  input: unknown;
  steps: RunStep[];
}

/** Every run of a flow, page by page. */
export async function runsOf(call: Call, flowId: string): Promise<Run[]> {
  const runs: Run[] = [];
  for (let page = 1; ; page++) {
    const res = await call('GET', `/api/v1/flows/${flowId}/runs?limit=200&page=${page}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.data as Run[];
    runs.push(...data);
    if (runs.length >= res.body.meta.total || !data.length) return runs;
  }
}

/** Polls `check` until it holds, failing after `ms` (a bound on a wait for the server, not an assertion of time). */
export async function eventually<T>(what: string, ms: number, check: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got !== null) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Kills a server process at once (no shutdown hook runs) and waits for it to be gone. */
export async function kill(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGKILL');
  await server.exited;
}
