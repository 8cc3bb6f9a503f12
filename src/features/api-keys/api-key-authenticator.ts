import type { Authenticator } from '../../kernel/auth/actor.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { Db } from '../../kernel/db/database.ts';
import type { EventStore } from '../../kernel/es/event-store.ts';
import { findApiKeyCredential, touchApiKey, type ApiKeyCredential } from '../../../projections/api-keys/index.ts';
import { InvalidApiKey, OriginNotAllowed } from './api-key.errors.ts';
import { API_KEY_EVENT_TYPES, type ApiKeyEvent } from '../../contracts/api-keys/api-key.events.ts';
import { onEvents } from '../../kernel/es/on-events.ts';
import { API_KEY_PREFIX, parseApiKey, secretMatches } from './api-key.secrets.ts';

const CACHE_MS = 10_000;
const TOUCH_EVERY_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * API keys (`svck_…`, `svck_pub_…`). Every token with the prefix is claimed here and accepted or refused, never
 * passed on. A key record is cached in the process for up to 10 s; this node drops it the moment it commits a
 * change to the key, so a revocation here takes effect at once, one on another node within 10 s.
 */
export function apiKeyAuthenticator(db: Db, store: EventStore, clock: Clock): Authenticator {
  const cache = new Map<string, { at: number; key: ApiKeyCredential }>();
  const touched = new Map<string, number>();
  // Bumped on every invalidation: a lookup that raced one does not cache what it read before it.
  let epoch = 0;
  onEvents<ApiKeyEvent>(store, API_KEY_EVENT_TYPES, (events) => {
    for (const e of events) {
      epoch++;
      cache.delete(e.data.keyId);
    }
  });
  const remember = <V>(m: Map<string, V>, k: string, v: V) => {
    m.set(k, v);
    if (m.size > MAX_ENTRIES) m.delete(m.keys().next().value as string);
  };

  const lookup = async (keyId: string, now: number): Promise<ApiKeyCredential | null> => {
    const hit = cache.get(keyId);
    if (hit && now - hit.at < CACHE_MS && now >= hit.at) return hit.key;
    const before = epoch;
    const key = await findApiKeyCredential(db, keyId);
    if (key && epoch === before) remember(cache, keyId, { at: now, key });
    return key;
  };

  // Last-used time is operational telemetry, not an event: written at most once a minute per key, after the
  // answer is decided and without waiting for it; a failed write costs only the telemetry.
  const touch = (keyId: string, now: Date) => {
    const last = touched.get(keyId);
    if (last !== undefined && now.getTime() - last < TOUCH_EVERY_MS && now.getTime() >= last) return;
    remember(touched, keyId, now.getTime());
    void touchApiKey(db, keyId, now).catch(() => touched.delete(keyId));
  };

  return {
    name: 'api-key',
    order: 10,
    authenticate: async (token, ctx) => {
      if (!token.startsWith(API_KEY_PREFIX)) return null;
      const parsed = parseApiKey(token);
      if (!parsed) throw new InvalidApiKey();
      const now = clock.now();
      const key = await lookup(parsed.id, now.getTime());
      if (!key || key.publishable !== parsed.publishable || !secretMatches(parsed.secret, key.secretHash))
        throw new InvalidApiKey();
      if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) throw new InvalidApiKey();
      // A same-origin GET carries no Origin: the service's own pages may use a key (README "Calling from a browser").
      if (key.publishable && !(ctx.origin ? key.allowedOrigins.includes(ctx.origin) : ctx.sameOrigin))
        throw new OriginNotAllowed();
      touch(key.keyId, now);
      return {
        type: 'apiKey',
        id: key.keyId,
        email: '',
        instanceAdmin: false,
        roles: { [key.siteId]: key.role },
        tokenVersion: 0,
        amr: ['key'],
        readOnly: key.publishable,
      };
    },
  };
}
