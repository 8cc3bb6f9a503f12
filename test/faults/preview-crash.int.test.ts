import { randomUUID } from 'node:crypto';
import { githubSignature } from '../support/git-deliveries.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../support/server-process.ts';
import { loginTo, processStore } from '../support/process-store.ts';

/**
 * SIGKILL while a preview site is torn down (its pull request merged), then a restart: the teardown completes (the
 * preview's reactor handles the merge again from its checkpoint), the preview site answers 404 and the base site is
 * whole.
 */
const ADMIN = { email: 'previewer@example.com', password: 'Kill-preview-pass-1234' };
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const ITEMS = 1500;
const store = processStore('prevcrash');
const serverEnv = () => ({
  ...store.env(),
  SVC_ADMIN_EMAIL: ADMIN.email,
  SVC_ADMIN_PASSWORD: ADMIN.password,
  SVC_SITE_ID: 'main',
});
afterAll(() => store.drop());

function client(server: ServerProcess, token: string | null) {
  return async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        'x-svc-site': 'main',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as { data: never; meta: never } | null };
  };
}

const pullRequest = (state: 'open' | 'closed', at: string) =>
  JSON.stringify({
    action: state === 'open' ? 'opened' : 'closed',
    number: 1,
    pull_request: {
      title: 'Preview me',
      state,
      merged: state === 'closed',
      html_url: null,
      updated_at: at,
      head: { ref: 'feature', sha: 'c'.repeat(40), repo: { full_name: 'acme/site' } },
      base: { ref: 'main', repo: { full_name: 'acme/site' } },
    },
  });

type Preview = { siteId: string; state: string };

describe('SIGKILL during a preview teardown', () => {
  it('completes the teardown after the restart and leaves the base site whole', async () => {
    await store.create();
    const server = await startServer(serverEnv());
    const call = client(server, await loginTo(server, ADMIN));
    await call('POST', '/api/v1/collections', { name: 'articles' });
    await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
    for (let i = 0; i < ITEMS; i += 500)
      expect(
        (
          await call(
            'POST',
            '/api/v1/items/articles',
            Array.from({ length: 500 }, (_, k) => ({ id: `a${i + k}`, title: `Article ${i + k}` })),
          )
        ).status,
      ).toBe(201);
    const integration = (
      await call('POST', '/api/v1/integrations/git', {
        provider: 'github',
        repository: 'acme/site',
        authMethod: 'pat',
        webhookSecret: SECRET,
        sync_config: { preview: true },
      })
    ).body!.data as { id: string; webhookUrl: string };
    const receiver = new URL(integration.webhookUrl).pathname;
    const deliver = async (body: string) => {
      const res = await call('POST', receiver, body, {
        'x-github-event': 'pull_request',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': githubSignature(SECRET, body),
      });
      expect(res.status).toBe(200);
    };
    const previews = async (c: typeof call) =>
      ((await c('GET', '/api/v1/integrations/git/previews')).body!.data as Preview[]) ?? [];
    const waitFor = async (c: typeof call, state: string) => {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const p = (await previews(c))[0];
        if (p?.state === state) return p;
        if (Date.now() > deadline) throw new Error(`no preview ${state}: ${JSON.stringify(p)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    await deliver(pullRequest('open', '2026-11-01T10:00:00Z'));
    const live = await waitFor(call, 'live');
    const count = async (c: typeof call, site: string) =>
      c('GET', '/api/v1/items/articles?limit=1&meta=total_count', undefined, { 'x-svc-site': site });
    expect(((await count(call, live.siteId)).body!.meta as { total: number }).total).toBe(ITEMS);

    // The merge; killed as soon as its delivery is recorded, while the previewer tears the preview down.
    await deliver(pullRequest('closed', '2026-11-01T11:00:00Z'));
    server.child.kill('SIGKILL');
    await server.exited;

    const again = await startServer(serverEnv());
    try {
      const call2 = client(again, await loginTo(again, ADMIN));
      await waitFor(call2, 'torn_down');
      expect((await count(call2, live.siteId)).status).toBe(404);
      expect(((await count(call2, 'main')).body!.meta as { total: number }).total).toBe(ITEMS);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 240_000);
});
