import { expect } from 'vitest';
import type { TestApp } from './app.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface CallOptions {
  /** A bearer token; `null` calls anonymously; left out: the file's default caller. */
  as?: string | null;
  /** The X-Svc-Site value (`main` when left out). */
  site?: string;
  headers?: Record<string, string>;
}

/** The first error of an envelope, as the tests read it. */
export const firstError = (body: string) =>
  JSON.parse(body).errors[0] as { code: string; message: string; path: string[]; extensions: Record<string, unknown> };

/**
 * A test file's client of the API: `call` sends a request (as the default caller on site `main` unless told), `ok`
 * also expects a 2xx and answers the envelope's `data` (null for 204). The app and the default caller are read at
 * each call, so a file assigns them in `beforeAll`.
 */
export function apiClient(app: () => TestApp, defaultAs: () => string) {
  const call = (method: Method, url: string, payload?: unknown, opts: CallOptions = {}) =>
    app().call({
      method,
      url,
      ...(opts.as === null ? {} : { as: opts.as ?? defaultAs() }),
      site: opts.site ?? 'main',
      ...(opts.headers ? { headers: opts.headers } : {}),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const ok = async (method: Method, url: string, payload?: unknown, opts: CallOptions = {}) => {
    const res = await call(method, url, payload, opts);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.statusCode === 204 ? null : res.json().data;
  };
  return { call, ok };
}
