import type { FastifyInstance, FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import { siteFromRequest } from '../../kernel/tenancy/site.ts';
import { OriginList } from './cors-origins.ts';

/** The methods the API answers. */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The request headers a client of the API sends beyond the safelisted ones. */
export const CORS_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Svc-Site',
  'X-Svc-Refresh',
  'X-Svc-Locale',
  'X-Svc-Draft',
  'If-Match',
  'Idempotency-Key',
] as const;
/** The answer headers a client reads beyond the safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Deprecation',
  'Sunset',
  'Link',
  'Location',
] as const;
/** Seconds a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = 600;
const DELIVERY = /^\/api\/v1\/deliver\/[^/]+\/([^/?]+)/;

/** What the sites and publishable keys allow, as of one moment (a cached snapshot). */
export interface CorsIndex {
  /** A site's `cors` setting. */
  site(siteId: string): { origins: OriginList; delivery: 'any' | 'listed' } | undefined;
  /** The site's list, or one of its live publishable keys, allows the origin. */
  siteOrKeysAllow(siteId: string, origin: string): boolean;
  /** Some site's list, or some live publishable key, allows the origin. */
  anyAllows(origin: string): boolean;
  /** A live publishable key's site and origins. */
  key(keyId: string): { siteId: string; origins: ReadonlySet<string> } | undefined;
}

/** What the composition root hands the CORS decision: the instance's settings and the sites' and keys' index. */
export interface CorsPolicy {
  /** SVC_CORS_ORIGINS. */
  instance: OriginList;
  /** SVC_CORS_CREDENTIALS: the instance origins may send cookies. */
  credentials: boolean;
  /** The index, cached and invalidated by the sites' and keys' events (never a query per request). */
  index(): Promise<CorsIndex>;
  /** The key id of a publishable key (`svck_pub_…`), or null for any other token. */
  publishableKeyId(token: string): string | null;
  /** The service's own host (SVC_PUBLIC_URL's `host[:port]`): its first label names no site. */
  ownHost?: string | null;
}

/** The decision for one request: the Access-Control-Allow-Origin value (none when false), and cookies or not. */
export interface CorsAnswer {
  origin: string | false;
  credentials: boolean;
  /** Which preflight this is (its methods differ), or null for an actual request. */
  preflight: 'api' | 'delivery' | null;
}

type Headers = FastifyRequest['headers'];
const decodedSegment = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const NONE: CorsAnswer = { origin: false, credentials: false, preflight: null };

/**
 * Who may read this answer from a browser. Credentials only ever for the instance's origins. A preflight cannot
 * carry X-Svc-Site's value, so it is answered for any origin some site or publishable key allows (only that site's,
 * when the subdomain names it); the actual answer names the origin only when its own site (or the key it carries)
 * allows it, so a page allowed by another site never reads it. Public delivery answers `*` unless its site narrows.
 */
export async function decideCors(
  method: string,
  path: string,
  headers: Headers,
  policy: CorsPolicy,
  index: () => Promise<CorsIndex>,
): Promise<CorsAnswer> {
  const origin = one(headers.origin);
  const preflight = method === 'OPTIONS';
  if (preflight && (!origin || !one(headers['access-control-request-method']))) return NONE;
  const delivery = DELIVERY.exec(path);
  if (delivery) {
    const kind = preflight ? 'delivery' : null;
    // The router decodes the path's percent escapes (`%6Earrow` is the site `narrow`): the site is read as it will.
    const site = (await index()).site(decodedSegment(delivery[1]!).toLowerCase());
    if (site?.delivery !== 'listed') return { origin: '*', credentials: false, preflight: kind };
    const allowed = origin !== undefined && (policy.instance.allows(origin) || site.origins.allows(origin));
    return allowed ? { origin, credentials: false, preflight: kind } : NONE;
  }
  if (!origin) return NONE;
  if (policy.instance.allows(origin))
    return { origin, credentials: policy.credentials, preflight: preflight ? 'api' : null };
  if (preflight) {
    const host = one(headers.host);
    const sub = host?.toLowerCase() === policy.ownHost ? null : siteFromRequest({}, host);
    const idx = await index();
    const allowed = sub ? idx.siteOrKeysAllow(sub, origin) : idx.anyAllows(origin);
    return allowed ? { origin, credentials: false, preflight: 'api' } : NONE;
  }
  const site = siteFromRequest(headers, one(headers.host));
  const idx = await index();
  if (site && idx.site(site)?.origins.allows(origin)) return { origin, credentials: false, preflight: null };
  const token = /^Bearer\s+(\S+)$/i.exec(one(headers.authorization) ?? '')?.[1];
  const keyId = token ? policy.publishableKeyId(token) : null;
  const key = keyId ? idx.key(keyId) : undefined;
  if (key && (!site || key.siteId === site) && key.origins.has(origin))
    return { origin, credentials: false, preflight: null };
  return NONE;
}

/**
 * CORS for every answer (@fastify/cors, decided per request in the first hook, so refusals and 4xx envelopes carry
 * it too). `Vary: Origin` goes on every answer, and stays there when a route sets its own Vary.
 */
export async function installCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  const index = async () => {
    try {
      return await policy.index();
    } catch (err) {
      // Without the index only the instance's origins and public delivery are answered: a failed read of the sites
      // must not turn every cross-origin request into a 500.
      app.log.warn({ err }, 'CORS index unavailable');
      return EMPTY_INDEX;
    }
  };
  await app.register(cors, {
    hook: 'onRequest',
    delegator: async (req: FastifyRequest) => {
      const a = await decideCors(req.method, req.url.split('?')[0]!, req.headers, policy, index);
      return {
        origin: a.origin,
        credentials: a.credentials,
        methods: a.preflight === 'delivery' ? ['GET', 'HEAD'] : [...CORS_METHODS],
        allowedHeaders: [...CORS_REQUEST_HEADERS],
        exposedHeaders: [...CORS_EXPOSED_HEADERS],
        maxAge: PREFLIGHT_MAX_AGE_S,
      };
    },
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    const vary = reply.getHeader('vary');
    const list = Array.isArray(vary) ? vary.join(',') : String(vary ?? '');
    if (!/(^|,)\s*(origin|\*)\s*(,|$)/i.test(list)) void reply.header('vary', list ? `${list}, Origin` : 'Origin');
    return payload;
  });
}

const EMPTY_INDEX: CorsIndex = {
  site: () => undefined,
  siteOrKeysAllow: () => false,
  anyAllows: () => false,
  key: () => undefined,
};

/** The index of what every site's `cors` setting and every live publishable key allows. */
export function buildCorsIndex(
  sites: { siteId: string; cors: unknown }[],
  keys: { keyId: string; siteId: string; allowedOrigins: string[] }[],
): CorsIndex {
  const bySite = new Map<string, { origins: OriginList; delivery: 'any' | 'listed' }>();
  const keyOriginsBySite = new Map<string, Set<string>>();
  const byKey = new Map<string, { siteId: string; origins: ReadonlySet<string> }>();
  const all = new OriginList();
  for (const { siteId, cors } of sites) {
    const c = (cors ?? {}) as { origins?: unknown; delivery?: unknown };
    const patterns = Array.isArray(c.origins) ? c.origins.filter((o): o is string => typeof o === 'string') : [];
    bySite.set(siteId, { origins: new OriginList(patterns), delivery: c.delivery === 'listed' ? 'listed' : 'any' });
    for (const p of patterns) all.add(p);
  }
  for (const k of keys) {
    const origins = new Set(k.allowedOrigins);
    byKey.set(k.keyId, { siteId: k.siteId, origins });
    const forSite = keyOriginsBySite.get(k.siteId) ?? new Set<string>();
    for (const o of origins) forSite.add(o);
    keyOriginsBySite.set(k.siteId, forSite);
    for (const o of origins) all.add(o);
  }
  return {
    site: (siteId) => bySite.get(siteId),
    siteOrKeysAllow: (siteId, origin) =>
      (bySite.get(siteId)?.origins.allows(origin) ?? false) || (keyOriginsBySite.get(siteId)?.has(origin) ?? false),
    anyAllows: (origin) => all.allows(origin),
    key: (keyId) => byKey.get(keyId),
  };
}

/**
 * An index read at most once per `ttlMs` (other nodes' changes arrive within it), dropped at once by `invalidate`
 * (this node's site and key events); concurrent requests share one read, and a failed read is not kept.
 */
export function cachedCorsIndex(
  load: () => Promise<CorsIndex>,
  ttlMs: number,
  now: () => number = Date.now,
): { index(): Promise<CorsIndex>; invalidate(): void } {
  let current: { at: number; value: Promise<CorsIndex> } | null = null;
  return {
    index: () => {
      const t = now();
      if (current && t - current.at < ttlMs && t >= current.at) return current.value;
      const entry = { at: t, value: load() };
      current = entry;
      entry.value.catch(() => {
        if (current === entry) current = null;
      });
      return entry.value;
    },
    invalidate: () => {
      current = null;
    },
  };
}
