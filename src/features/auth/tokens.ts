import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { DomainError } from '../../kernel/http/errors.ts';

export interface AccessClaims {
  sub: string;
  tv: number;
  amr: string[];
  jti: string;
}

/** HS256 access tokens signed with JWT_SECRET. */
export class TokenService {
  // A KeyObject made once: jose would otherwise import the raw secret on every sign and verify.
  private readonly key: KeyObject;
  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  async issue(
    userId: string,
    tokenVersion: number,
    amr: string[] = ['pwd'],
  ): Promise<{ token: string; expiresIn: number }> {
    const token = await new SignJWT({ tv: tokenVersion, amr })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setJti(randomUUID())
      .setIssuedAt()
      .setAudience('svc-access')
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
    return { token, expiresIn: this.ttlSeconds };
  }

  async verify(token: string): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], audience: 'svc-access' });
      return {
        sub: String(payload.sub),
        tv: Number(payload.tv ?? 0),
        amr: (payload.amr as string[]) ?? [],
        jti: String(payload.jti),
      };
    } catch (err) {
      if (err instanceof errors.JWTExpired)
        throw new DomainError('TOKEN_EXPIRED', 'the access token has expired; refresh and retry');
      throw new DomainError('UNAUTHENTICATED', 'invalid access token');
    }
  }
}
