import { describe, expect, it } from 'vitest';
import { ApiClient, ApiError, type FetchLike } from '../../studio/src/api/client.ts';

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
  raw: RequestInit['body'];
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const session = (token: string, id = 'u1') => ({
  data: {
    token,
    expiresIn: 900,
    refreshToken: 'r-in-body',
    user: { id, email: 'a@b.c', firstName: null, lastName: null },
  },
});
const unauthorized = () => json(401, { errors: [{ code: 'UNAUTHORIZED', message: 'token expired', path: [] }] });

/** A service in a function: answers by path, records what the client sent. */
function service(answer: (s: Sent, calls: Sent[]) => Response | Promise<Response>) {
  const calls: Sent[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const sent: Sent = {
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      raw: init.body,
    };
    calls.push(sent);
    return answer(sent, calls);
  };
  return { calls, api: new ApiClient(fetchFn) };
}

describe('the studio API client', () => {
  it('signs in, then sends the access token and the site on every call', async () => {
    const { api, calls } = service((s) =>
      s.url === '/api/v1/auth/login' ? json(200, session('t1')) : json(200, { data: [], meta: { total: 0 } }),
    );
    expect(api.signedIn).toBe(false);
    expect(await api.login('a@b.c', 'pw')).toEqual({ kind: 'signed-in', user: session('t1').data.user });
    expect(calls[0]!.body).toEqual({ email: 'a@b.c', password: 'pw' });
    expect(calls[0]!.headers.get('authorization')).toBeNull();

    const res = await api.get('/items/articles', { site: 'main', query: { limit: 25, page: 2, skip: undefined } });
    expect(res).toEqual({ data: [], meta: { total: 0 } });
    expect(calls[1]!.url).toBe('/api/v1/items/articles?limit=25&page=2');
    expect(calls[1]!.headers.get('authorization')).toBe('Bearer t1');
    expect(calls[1]!.headers.get('x-svc-site')).toBe('main');
  });

  it('answers a TOTP challenge with a code or a recovery code before holding a token', async () => {
    const { api, calls } = service((s) =>
      s.url === '/api/v1/auth/login'
        ? json(200, { data: { status: 'mfa_required', challengeToken: 'ch', expiresIn: 300 } })
        : json(200, session('t2')),
    );
    expect(await api.login('a@b.c', 'pw')).toEqual({ kind: 'mfa', challengeToken: 'ch' });
    expect(api.signedIn).toBe(false);
    await api.verifyTotp('ch', { recoveryCode: 'abcd-efgh' });
    expect(calls[1]!.url).toBe('/api/v1/auth/verify-totp');
    expect(calls[1]!.body).toEqual({ challengeToken: 'ch', recoveryCode: 'abcd-efgh' });
    expect(api.signedIn).toBe(true);
  });

  it('refreshes once through the cookie on a 401 and retries with the new token', async () => {
    let refreshed = false;
    const { api, calls } = service((s) => {
      if (s.url === '/api/v1/auth/login') return json(200, session('old'));
      if (s.url === '/api/v1/auth/refresh') {
        refreshed = true;
        return json(200, session('new'));
      }
      return s.headers.get('authorization') === 'Bearer new' ? json(200, { data: 'ok' }) : unauthorized();
    });
    await api.login('a@b.c', 'pw');
    expect((await api.get('/collections', { site: 'main' })).data).toBe('ok');
    expect(refreshed).toBe(true);
    const refresh = calls.find((c) => c.url === '/api/v1/auth/refresh')!;
    expect(refresh.method).toBe('POST');
    expect(refresh.headers.get('x-svc-refresh')).toBe('1');
    // The refresh travels on the cookie alone: neither the old access token nor a body.
    expect(refresh.headers.get('authorization')).toBeNull();
    expect(refresh.body).toBeUndefined();
    expect(calls.map((c) => c.url)).toEqual([
      '/api/v1/auth/login',
      '/api/v1/collections',
      '/api/v1/auth/refresh',
      '/api/v1/collections',
    ]);
  });

  it('shares one refresh among calls that meet an expired token together (the refresh token rotates)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { api, calls } = service(async (s) => {
      if (s.url === '/api/v1/auth/login') return json(200, session('old'));
      if (s.url === '/api/v1/auth/refresh') {
        await gate;
        return json(200, session('new'));
      }
      return s.headers.get('authorization') === 'Bearer new' ? json(200, { data: s.url }) : unauthorized();
    });
    await api.login('a@b.c', 'pw');
    const pending = Promise.all([api.get('/a'), api.get('/b'), api.get('/c')]);
    await new Promise((r) => setTimeout(r, 0));
    release();
    expect((await pending).map((r) => r.data)).toEqual(['/api/v1/a', '/api/v1/b', '/api/v1/c']);
    expect(calls.filter((c) => c.url === '/api/v1/auth/refresh')).toHaveLength(1);
  });

  it('signs out locally when the refresh is refused, and the call fails with the API error', async () => {
    const { api } = service((s) => (s.url === '/api/v1/auth/login' ? json(200, session('t')) : unauthorized()));
    const seen: (string | null)[] = [];
    api.subscribe((u) => seen.push(u?.id ?? null));
    await api.login('a@b.c', 'pw');
    const err = await api.get('/collections').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect((err as ApiError).code).toBe('UNAUTHORIZED');
    expect(api.signedIn).toBe(false);
    expect(seen).toEqual(['u1', null]);
  });

  it('does not refresh for a 401 of a call made without a token', async () => {
    const { api, calls } = service(() => unauthorized());
    await expect(api.get('/collections')).rejects.toBeInstanceOf(ApiError);
    expect(calls.map((c) => c.url)).toEqual(['/api/v1/collections']);
  });

  it('restores a session after a reload from the refresh cookie, or reports there is none', async () => {
    const none = service(() => unauthorized());
    expect(await none.api.restore()).toBe(false);
    const some = service(() => json(200, session('restored')));
    expect(await some.api.restore()).toBe(true);
    expect(some.api.user?.id).toBe('u1');
    expect(some.calls[0]!.headers.get('x-svc-refresh')).toBe('1');
  });

  it('forgets the token on sign-out even when the service cannot be reached', async () => {
    let down = false;
    const { api, calls } = service(() => {
      if (down) throw new TypeError('network down');
      return json(200, session('t'));
    });
    await api.login('a@b.c', 'pw');
    down = true;
    await expect(api.logout()).rejects.toThrow('network down');
    expect(api.signedIn).toBe(false);
    expect(calls[1]!.url).toBe('/api/v1/auth/logout');
    expect(calls[1]!.headers.get('x-svc-refresh')).toBe('1');
  });

  it('turns an answer that is not the error envelope into an ApiError with its status', async () => {
    const { api } = service(() => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    const err = (await api.get('/x').catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(502);
    expect(err.code).toBe('HTTP_502');
  });

  it('uploads a form as multipart (the boundary left to the browser) with the token and the site', async () => {
    const { api, calls } = service((s) =>
      s.url === '/api/v1/auth/login' ? json(200, session('t1')) : json(201, { data: { id: 'f1' } }),
    );
    await api.login('a@b.c', 'pw');
    const form = new FormData();
    form.append('file', new Blob(['png'], { type: 'image/png' }), 'a.png');
    expect((await api.upload('/files', form, { site: 'main' })).data).toEqual({ id: 'f1' });
    const sent = calls[1]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/api/v1/files');
    expect(sent.raw).toBe(form);
    expect(sent.headers.get('content-type')).toBeNull();
    expect(sent.headers.get('authorization')).toBe('Bearer t1');
    expect(sent.headers.get('x-svc-site')).toBe('main');
  });

  it("answers an upload's refusal as the API's error (413, 415)", async () => {
    const { api } = service(() =>
      json(413, { errors: [{ code: 'UPLOAD_TOO_LARGE', message: 'the upload exceeds the limit', path: ['body'] }] }),
    );
    const err = (await api.upload('/files', new FormData()).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect([err.status, err.code, err.message]).toEqual([413, 'UPLOAD_TOO_LARGE', 'the upload exceeds the limit']);
  });

  it('reads bytes as a Blob after one refresh, asking for an image', async () => {
    const { api, calls } = service((s) => {
      if (s.url === '/api/v1/auth/login') return json(200, session('old'));
      if (s.url === '/api/v1/auth/refresh') return json(200, session('new'));
      return s.headers.get('authorization') === 'Bearer new'
        ? new Response(new Uint8Array([1, 2, 3]), { headers: { 'content-type': 'image/png' } })
        : unauthorized();
    });
    await api.login('a@b.c', 'pw');
    const blob = await api.blob('/assets/f1', { site: 'main', query: { width: 160, fit: 'inside' } });
    expect(blob.type).toBe('image/png');
    expect([...new Uint8Array(await blob.arrayBuffer())]).toEqual([1, 2, 3]);
    const last = calls.at(-1)!;
    expect(last.url).toBe('/api/v1/assets/f1?width=160&fit=inside');
    expect(last.headers.get('accept')).toMatch(/^image\/\*/);
    expect(last.headers.get('x-svc-site')).toBe('main');
  });
});
