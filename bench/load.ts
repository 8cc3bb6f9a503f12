import fs from 'node:fs';
import autocannon from 'autocannon';
import { requestHeaders, resolvePath, type Scenario } from './scenarios.ts';

export interface LoadConfig {
  connections: number;
  warmup: number;
  duration: number;
}

/** One scenario's figures, named like the peer's summary.json `results`. */
export interface Measured {
  name: string;
  rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  requests: number;
  non2xx: number;
  /** Non-2xx answers by status code, e.g. `{ "409": 3 }`. */
  non2xx_by_status: Record<string, number>;
  errors: number;
  server_cpu_pct: number;
  server_cpu_ms_per_req: number | null;
}

export interface Target {
  url: string;
  pid: number;
  token: string;
  site: string;
  sampleId: string;
}

/** utime + stime of a process in seconds (USER_HZ = 100). */
export const cpuSeconds = (pid: number) => {
  const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

export const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

function fire(t: Target, s: Scenario, connections: number, duration: number) {
  return autocannon({
    url: t.url,
    connections,
    duration,
    requests: [
      {
        method: s.method,
        path: resolvePath(s, t.sampleId),
        headers: requestHeaders(s, t.token, t.site),
        setupRequest: (req) => ({ ...req, body: s.body ? JSON.stringify(s.body()) : undefined }),
      },
    ],
  });
}

/** The same request once with fetch: a wrong path or body fails here instead of as a fast run of 4xx. */
async function probe(t: Target, s: Scenario): Promise<void> {
  const res = await fetch(`${t.url}${resolvePath(s, t.sampleId)}`, {
    method: s.method,
    headers: requestHeaders(s, t.token, t.site),
    body: s.body ? JSON.stringify(s.body()) : undefined,
  });
  if (!res.ok) throw new Error(`${s.key} probe answered ${res.status}: ${await res.text()}`);
}

function non2xxByStatus(stats: Record<string, { count?: number }> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [code, v] of Object.entries(stats ?? {})) if (!code.startsWith('2') && v.count) out[code] = v.count;
  return out;
}

/** Probe, warm-up, then the measured window with the server's CPU time read around it. */
export async function measure(t: Target, s: Scenario, cfg: LoadConfig): Promise<Measured> {
  await probe(t, s);
  if (cfg.warmup > 0) await fire(t, s, cfg.connections, cfg.warmup);
  const cpu0 = cpuSeconds(t.pid);
  const r = await fire(t, s, cfg.connections, cfg.duration);
  const cpu = cpuSeconds(t.pid) - cpu0;
  return {
    name: s.name,
    rps: Math.round(r.requests.mean),
    p50_ms: r.latency.p50,
    p90_ms: r.latency.p90,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    requests: r.requests.total,
    non2xx: r.non2xx,
    non2xx_by_status: non2xxByStatus(r.statusCodeStats),
    errors: r.errors,
    server_cpu_pct: Math.round((cpu / cfg.duration) * 100),
    server_cpu_ms_per_req: r.requests.total ? Math.round((cpu * 1000 * 100) / r.requests.total) / 100 : null,
  };
}

/**
 * Calls `send(i)` `rate` times a second for `seconds` (open loop: a slow answer does not slow the sending), and
 * resolves once every call has settled: how many were sent and failed, and the seconds the sending took.
 */
export async function paced(
  rate: number,
  seconds: number,
  send: (i: number) => Promise<unknown>,
): Promise<{ sent: number; failed: number; elapsedS: number }> {
  const started = Date.now();
  let sent = 0;
  let failed = 0;
  const inflight = new Set<Promise<unknown>>();
  while (Date.now() - started < seconds * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (sent < due) {
      const p = send(sent++).catch(() => failed++);
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const elapsedS = (Date.now() - started) / 1000;
  await Promise.all(inflight);
  return { sent, failed, elapsedS };
}
