import { createHmac, randomUUID } from 'node:crypto';
import { rssMb } from './load.ts';
import { benchServer } from './server.ts';

/**
 * The git receiver on PostgreSQL: N signed GitHub deliveries (default 5 000, pull requests and check runs of about
 * 6 KB, the size of a real pull_request payload) sent by C concurrent senders (default 10). Reports deliveries
 * accepted per second with verification, the answer's p50/p99, how long processing (pull requests and CI runs
 * into their read models) took to catch up, and the server's peak resident memory. `npm run bench:git`.
 */
const N = Number(process.env.N ?? 5000);
const C = Number(process.env.C ?? 10);
const SECRET = 'bench-webhook-secret-of-forty-characters';

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const { server, login, close } = await benchServer('svc_bench_git', { SVC_GIT_WEBHOOK_PER_MINUTE: '1000000' });
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid!))), 250);
try {
  const token = await login();
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-svc-site': 'bench',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const integration = await api<{ data: { id: string; webhookUrl: string } }>('POST', '/api/v1/integrations/git', {
    provider: 'github',
    repository: 'acme/site',
    authMethod: 'pat',
    webhookSecret: SECRET,
  });
  const receiver = `${server.url}${new URL(integration.data.webhookUrl).pathname}`;
  const filler = 'x'.repeat(5000);
  const payload = (i: number) =>
    i % 2 === 0
      ? {
          action: 'synchronize',
          number: (i % 500) + 1,
          pull_request: {
            title: `Change ${String(i)}`,
            state: 'open',
            merged: false,
            html_url: `https://github.com/acme/site/pull/${String(i)}`,
            updated_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
            head: { ref: `feature-${String(i % 500)}`, sha: (i.toString(16) + 'a'.repeat(40)).slice(0, 40) },
            base: { ref: 'main' },
            body: filler,
          },
        }
      : {
          action: 'completed',
          check_run: {
            id: i,
            name: 'build',
            head_sha: 'b'.repeat(40),
            status: 'completed',
            conclusion: i % 10 === 1 ? 'failure' : 'success',
            html_url: null,
            started_at: null,
            completed_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
            check_suite: { head_branch: 'main' },
            output: { summary: filler },
          },
        };

  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) {
        const i = next++;
        const body = JSON.stringify(payload(i));
        const t0 = performance.now();
        const res = await fetch(receiver, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-github-event': i % 2 === 0 ? 'pull_request' : 'check_run',
            'x-github-delivery': randomUUID(),
            'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
          },
          body,
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status !== 200) failed++;
      }
    }),
  );
  const sendS = (performance.now() - started) / 1000;
  // Processing runs off the request: wait until the last check run is in the read model.
  const runs = N / 2;
  for (;;) {
    const ci = await api<{ meta: { total: number } }>('GET', '/api/v1/integrations/git/ci?limit=1');
    if (ci.meta.total >= Math.floor(runs)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const caughtUpS = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        deliveries: N,
        senders: C,
        failed,
        accepted_per_s: Math.round(N / sendS),
        p50_ms: Number(pct(latencies, 50).toFixed(1)),
        p99_ms: Number(pct(latencies, 99).toFixed(1)),
        processed_all_after_s: Number(caughtUpS.toFixed(1)),
        processing_per_s: Math.round(N / caughtUpS),
        peak_rss_mb: peak,
      },
      null,
      2,
    ),
  );
} finally {
  clearInterval(sampler);
  await close();
}
