import { createHmac, randomUUID } from 'node:crypto';
import { rssMb } from './load.ts';
import { benchServer } from './server.ts';

/**
 * The git receiver on PostgreSQL: N signed GitHub deliveries (default 5 000, pull requests and check runs of about
 * 6 KB, the size of a real pull_request payload) sent by C concurrent senders (default 10). Reports deliveries
 * accepted per second with verification, the answer's p50/p99, how long processing (pull requests and CI runs
 * into their read models) took to catch up, and the server's peak resident memory. Then a preview site: a base site
 * of ITEMS articles (default 10 000, bulk writes of 500) and PAGES pages (default 200), a pull request opened, and
 * the time until its preview is live (seeded from the base's events), with the peak memory meanwhile.
 * `npm run bench:git` (PART=deliveries or PART=preview for one part).
 */
const N = Number(process.env.N ?? 5000);
const ITEMS = Number(process.env.ITEMS ?? 10_000);
const PAGES = Number(process.env.PAGES ?? 200);
const PART = process.env.PART ?? 'all';
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
  const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const out: Record<string, unknown> = {};
  if (PART !== 'preview') out.deliveries = await deliveries();
  if (PART !== 'deliveries') out.preview = await preview();
  console.log(JSON.stringify(out, null, 2));

  async function deliveries() {
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
              base: { ref: 'main', repo: { full_name: 'acme/site' } },
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
              'x-hub-signature-256': sign(body),
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
    return {
      deliveries: N,
      senders: C,
      failed,
      accepted_per_s: Math.round(N / sendS),
      p50_ms: Number(pct(latencies, 50).toFixed(1)),
      p99_ms: Number(pct(latencies, 99).toFixed(1)),
      processed_all_after_s: Number(caughtUpS.toFixed(1)),
      processing_per_s: Math.round(N / caughtUpS),
      peak_rss_mb: peak,
    };
  }

  async function preview() {
    await api('POST', '/api/v1/collections', { name: 'articles' });
    await api('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
    await api('POST', '/api/v1/fields/articles', { field: 'body', type: 'text' });
    const text = 'Nội dung bài viết. '.repeat(20);
    const created = performance.now();
    for (let i = 0; i < ITEMS; i += 500)
      await api(
        'POST',
        '/api/v1/items/articles',
        Array.from({ length: Math.min(500, ITEMS - i) }, (_, k) => ({
          id: `a${i + k}`,
          title: `Article ${i + k}`,
          body: text,
        })),
      );
    const createdS = (performance.now() - created) / 1000;
    for (let i = 0; i < PAGES; i++) await api('POST', '/api/v1/pages', { slug: `page-${i}`, title: `Page ${i}` });
    const previewing = await api<{ data: { id: string; webhookUrl: string } }>('POST', '/api/v1/integrations/git', {
      provider: 'github',
      repository: 'acme/site',
      authMethod: 'pat',
      webhookSecret: SECRET,
      sync_config: { preview: true },
    });
    const body = JSON.stringify({
      action: 'opened',
      number: 1,
      pull_request: {
        title: 'Preview me',
        state: 'open',
        merged: false,
        html_url: null,
        updated_at: new Date().toISOString(),
        head: { ref: 'feature', sha: 'c'.repeat(40), repo: { full_name: 'acme/site' } },
        base: { ref: 'main', repo: { full_name: 'acme/site' } },
      },
    });
    const rssBefore = rssMb(server.child.pid!);
    peak = rssBefore;
    const t0 = performance.now();
    const res = await fetch(`${server.url}${new URL(previewing.data.webhookUrl).pathname}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': sign(body),
      },
      body,
    });
    if (res.status !== 200) throw new Error(`delivery: ${res.status} ${await res.text()}`);
    for (;;) {
      const list = await api<{ data: { state: string; copied: number; siteId: string }[] }>(
        'GET',
        `/api/v1/integrations/git/previews?integrationId=${previewing.data.id}`,
      );
      const live = list.data.find((p) => p.state === 'live');
      if (live) {
        const seconds = (performance.now() - t0) / 1000;
        const items = await api<{ meta: { total?: number } }>('GET', `/api/v1/items/articles?limit=1&meta=total_count`);
        return {
          items: ITEMS,
          pages: PAGES,
          site: live.siteId,
          copied_events: live.copied,
          seconds: Number(seconds.toFixed(1)),
          events_per_s: Math.round(live.copied / seconds),
          // The same items written through the API in bulk requests of 500, for comparison.
          base_items_created_by_api_s: Number(createdS.toFixed(1)),
          base_items_total: items.meta.total ?? null,
          rss_before_mb: rssBefore,
          peak_rss_mb: peak,
        };
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
} finally {
  clearInterval(sampler);
  await close();
}
