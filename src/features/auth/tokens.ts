import { createHmac, createSecretKey, randomUUID, timingSafeEqual, type KeyObject } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { AccessTokenExpired, InvalidAccessToken } from './auth.errors.ts';

export interface AccessClaims {
  sub: string;
  tv: number;
  amr: string[];
  jti: string;
  /** The session (refresh-token family) the token belongs to; null for tokens issued outside a session. */
  sid: string | null;
  /** Expiry, epoch milliseconds. */
  expMs: number;
  /** The impersonating admin (RFC 8693 `act.sub`), when an admin acts as this user. */
  act: string | null;
  /** Memberships at issue time (an impersonation token is held to these sites). */
  sites: Record<string, string>;
}

export interface AccessInput {
  userId: string;
  tokenVersion: number;
  amr: string[];
  sessionId: string | null;
  /** Site memberships (site id → role) at issue time: informational; every request checks the live ones. */
  sites: Record<string, string>;
  /** An impersonating admin's user id (RFC 8693 `act`). */
  actor?: string;
  /** A shorter lifetime than the configured one (never longer). */
  ttlSeconds?: number;
}

/** Purposes of the short-lived single-purpose tokens; each is its own JWT audience. */
export type Purpose =
  'mfa-challenge' | 'verify-email' | 'reset-password' | 'invite' | 'realtime-ticket' | 'git-oauth-state';

/** Purposes of the lasting tokens (no expiry, no id: links that must keep working, spec "Authentication" rule 9). */
export type LastingPurpose = 'email-unsubscribe';

const REFRESH_PREFIX = 'svcr_';
const REFRESH = /^svcr_([A-Za-z0-9_-]{10,64})\.(\d{1,9})\.([A-Za-z0-9_-]{43})$/;

/**
 * Every token the service signs, all keyed by JWT_SECRET: HS256 access tokens, single-purpose tokens
 * (MFA challenge, email verification, password reset), and refresh tokens. A refresh token is
 * `svcr_<session>.<generation>.<mac>`, the MAC an HMAC of session and generation: nothing secret is stored,
 * and a replayed older generation is recognised as genuine (theft detection), not as garbage.
 */
export class TokenService {
  // KeyObjects made once: jose would otherwise import the raw secret on every sign and verify.
  private readonly key: KeyObject;
  private readonly refreshKey: Buffer;
  private readonly addressKey: Buffer;
  private readonly flowTreeKey: Buffer;
  constructor(
    secret: string,
    readonly ttlSeconds: number,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
    this.refreshKey = createHmac('sha256', secret).update('svc-refresh-v1').digest();
    this.addressKey = createHmac('sha256', secret).update('svc-signed-address-v1').digest();
    this.flowTreeKey = createHmac('sha256', secret).update('svc-flow-tree-v1').digest();
  }

  /** An HMAC (base64url) of a flow run tree header's payload (x-svc-flow-tree), under a key of its own. */
  signFlowTree(payload: string): string {
    return createHmac('sha256', this.flowTreeKey).update(payload).digest('base64url');
  }

  /** Whether `signature` is `signFlowTree(payload)`, compared in constant time. */
  verifyFlowTree(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.signFlowTree(payload));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** An HMAC (base64url) of a signed address's fields (the disk's upload addresses), under a key of its own. */
  signAddress(fields: readonly string[]): string {
    return createHmac('sha256', this.addressKey).update(fields.join('\n')).digest('base64url');
  }

  /** Whether `signature` is `signAddress(fields)`, compared in constant time. */
  verifyAddress(fields: readonly string[], signature: string): boolean {
    const expected = Buffer.from(this.signAddress(fields));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async issue(input: AccessInput): Promise<{ token: string; expiresIn: number }> {
    const claims: JWTPayload = { tv: input.tokenVersion, amr: input.amr, sites: input.sites };
    if (input.sessionId) claims.sid = input.sessionId;
    if (input.actor) claims.act = { sub: input.actor };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(input.userId)
      .setJti(randomUUID())
      .setIssuedAt()
      .setAudience('svc-access')
      .setExpirationTime(`${Math.min(input.ttlSeconds ?? this.ttlSeconds, this.ttlSeconds)}s`)
      .sign(this.key);
    return { token, expiresIn: Math.min(input.ttlSeconds ?? this.ttlSeconds, this.ttlSeconds) };
  }

  async verify(token: string): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], audience: 'svc-access' });
      return {
        sub: String(payload.sub),
        tv: Number(payload.tv ?? 0),
        amr: (payload.amr as string[]) ?? [],
        jti: String(payload.jti),
        sid: typeof payload.sid === 'string' ? payload.sid : null,
        expMs: Number(payload.exp ?? 0) * 1000,
        sites: (payload.sites as Record<string, string> | undefined) ?? {},
        act:
          typeof (payload.act as { sub?: unknown } | undefined)?.sub === 'string'
            ? (payload.act as { sub: string }).sub
            : null,
      };
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new AccessTokenExpired();
      throw new InvalidAccessToken();
    }
  }

  /** A single-purpose token: its own audience, so it can never act as an access token (nor the reverse). */
  async issuePurpose(purpose: Purpose, sub: string, claims: JWTPayload, ttlSeconds: number): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(sub)
      .setJti(randomUUID())
      .setIssuedAt()
      .setAudience(purpose)
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.key);
  }

  /** The payload of a valid, unexpired token of this purpose, or why not (an expired genuine token, or anything else). */
  async checkPurpose(
    purpose: Purpose,
    token: string,
  ): Promise<(JWTPayload & { sub: string; jti: string }) | 'expired' | 'invalid'> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], audience: purpose });
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return 'invalid';
      return payload as JWTPayload & { sub: string; jti: string };
    } catch (err) {
      return err instanceof errors.JWTExpired ? 'expired' : 'invalid';
    }
  }

  /** The payload of a valid, unexpired token of this purpose, or null. */
  async verifyPurpose(purpose: Purpose, token: string): Promise<(JWTPayload & { sub: string; jti: string }) | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], audience: purpose });
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') return null;
      return payload as JWTPayload & { sub: string; jti: string };
    } catch {
      return null;
    }
  }

  /**
   * A lasting token: HS256 under JWT_SECRET, no expiry and no id, so the same claims always give the same token. Its
   * audience is its own, so it can never act as an access or single-purpose token (nor the reverse).
   */
  async issueLasting(purpose: LastingPurpose, claims: JWTPayload): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setAudience(purpose).sign(this.key);
  }

  /**
   * The payload of a genuine lasting token of this purpose, or null. HS256 only (`none` and other algorithms fail).
   * The spec's token carries no audience (another service's mailer makes it so), ours carries the purpose's: either
   * is taken. Every other token of the service names another audience (access, challenge, single-purpose) and a
   * `sub`, and refresh tokens are no JWTs; so any other audience, a `sub` or a token type other than JWT is refused.
   */
  async verifyLasting(purpose: LastingPurpose, token: string): Promise<JWTPayload | null> {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      const typ = protectedHeader.typ?.toUpperCase();
      const aud = payload.aud === undefined ? [] : ([] as string[]).concat(payload.aud);
      if (typ !== undefined && typ !== 'JWT') return null;
      if (aud.length > 1 || (aud.length === 1 && aud[0] !== purpose)) return null;
      return payload.sub === undefined ? payload : null;
    } catch {
      return null;
    }
  }

  refreshToken(sessionId: string, generation: number): string {
    return `${REFRESH_PREFIX}${sessionId}.${generation}.${this.mac(sessionId, generation)}`;
  }

  /** Session and generation of an authentic refresh token (MAC checked in constant time), or null. */
  parseRefresh(token: string): { sessionId: string; generation: number } | null {
    const m = REFRESH.exec(token);
    if (!m) return null;
    const [, sessionId, gen, mac] = m as unknown as [string, string, string, string];
    const expected = Buffer.from(this.mac(sessionId, Number(gen)));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return { sessionId, generation: Number(gen) };
  }

  private mac(sessionId: string, generation: number): string {
    return createHmac('sha256', this.refreshKey).update(`${sessionId}:${generation}`).digest('base64url');
  }
}
