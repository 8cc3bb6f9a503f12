import { outboundRequest, OutboundError } from '../../../platform/net/outbound-http.ts';
import { GitProviderFailed } from '../git.errors.ts';

/** A provider's answer at most: a tree listing of a large repository is big, a content file is capped far lower. */
const MAX_BYTES = 16 * 1024 * 1024;
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const);
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
const isMethod = (m: string): m is Method => (METHODS as Set<string>).has(m);

/**
 * A `fetch` for the provider clients (Octokit, Gitbeaker) that goes through the outbound helper: DNS checked
 * (private, loopback and link-local refused unless allowed), no redirects, a timeout and a size cap. A refusal or
 * network failure is GIT_PROVIDER_FAILED with the helper's reason.
 */
export function guardedFetch(opts: { allowPrivate: boolean; timeoutMs: number }): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const method = req.method.toUpperCase();
    if (!isMethod(method)) throw new GitProviderFailed({ reason: 'method' });
    const headers = new Map<string, string>();
    req.headers.forEach((value, name) => headers.set(name, value));
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    try {
      const res = await outboundRequest(req.url, {
        method,
        headers: Object.fromEntries(headers),
        ...(body ? { body } : {}),
        allowPrivate: opts.allowPrivate,
        timeoutMs: opts.timeoutMs,
        maxBytes: MAX_BYTES,
      });
      const out = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
      }
      const empty = res.status === 204 || res.status === 304 || method === 'HEAD';
      return new Response(empty ? null : res.text, { status: res.status, headers: out });
    } catch (err) {
      if (err instanceof OutboundError) throw new GitProviderFailed({ reason: err.reason });
      throw err;
    }
  };
}
