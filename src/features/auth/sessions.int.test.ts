import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { ManualClock } from '../../kernel/clock.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';
import { allProjectors } from '../index.ts';
import { sessionDecider } from './session.decider.ts';
import { sessionStream } from '../../contracts/auth/session.events.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Sessions-pass-4242!';

const login = (email: string, password = PASSWORD, headers: Record<string, string> = {}) =>
  t.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password }, headers });
const refresh = (refreshToken: string) =>
  t.call({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken } });
const cookieOf = (res: { headers: Record<string, unknown> }) => {
  const raw = res.headers['set-cookie'];
  return ([] as string[])
    .concat((raw as string | string[] | undefined) ?? [])
    .find((c) => c.startsWith('svc_refresh='));
};

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
});
afterAll(() => t.close());

describe('POST /api/v1/auth/login', () => {
  it('returns an access token, the user, and a refresh token in the body and as an httpOnly cookie', async () => {
    await createUser(t, 'ann@example.com', PASSWORD, { main: 'editor' });
    const res = await login('ann@example.com');
    expect(res.statusCode).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({ expiresIn: 900, user: { email: 'ann@example.com', avatar: null } });
    expect(d.refreshToken).toMatch(/^svcr_/);
    const cookie = cookieOf(res)!;
    expect(cookie).toContain(`svc_refresh=${d.refreshToken}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/api\/v1\/auth/);
    const claims = JSON.parse(Buffer.from(d.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: d.user.id, tv: 0, amr: ['pwd'], sites: { main: 'editor' } });
    expect(typeof claims.jti).toBe('string');
    expect(typeof claims.sid).toBe('string');
  });

  it('locks an address after repeated failures, whether or not it has an account, with the same answer', async () => {
    const u = await createTestApp({ env: { SVC_LOGIN_MAX_FAILURES: '3' } });
    try {
      await u.setup();
      const attempt = (email: string, password: string) =>
        u.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
      for (let i = 0; i < 3; i++) expect((await attempt(ADMIN.email, 'wrong-password-1A!')).statusCode).toBe(401);
      const locked = await attempt(ADMIN.email, ADMIN.password);
      expect(locked.statusCode).toBe(429);
      expect(locked.json().errors[0].code).toBe('RATE_LIMITED');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(locked.headers['x-ratelimit-limit']).toBe('3');
      expect(locked.headers['x-ratelimit-remaining']).toBe('0');
      for (let i = 0; i < 3; i++) await attempt('ghost@example.com', 'wrong-password-1A!');
      const ghost = await attempt('ghost@example.com', 'wrong-password-1A!');
      expect(ghost.statusCode).toBe(429);
      expect(ghost.json().errors[0].message).toBe(locked.json().errors[0].message);
    } finally {
      await u.close();
    }
  });

  it('limits attempts per IP address', async () => {
    const u = await createTestApp({ env: { SVC_LOGIN_MAX_PER_IP: '2' } });
    try {
      const attempt = (ip: string) =>
        u.call({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { email: `x${Math.random()}@example.com`, password: 'x' },
          remoteAddress: ip,
        });
      expect((await attempt('10.0.0.1')).statusCode).toBe(401);
      expect((await attempt('10.0.0.1')).statusCode).toBe(401);
      expect((await attempt('10.0.0.1')).statusCode).toBe(429);
      expect((await attempt('10.0.0.2')).statusCode).toBe(401);
    } finally {
      await u.close();
    }
  });
});

describe('POST /api/v1/auth/refresh', () => {
  it('rotates: the new token works once, the old one is dead', async () => {
    await createUser(t, 'rot@example.com', PASSWORD, { main: 'viewer' });
    const first = (await login('rot@example.com')).json().data.refreshToken;
    const r1 = await refresh(first);
    expect(r1.statusCode).toBe(200);
    const second = r1.json().data.refreshToken;
    expect(second).not.toBe(first);
    expect(cookieOf(r1)).toContain(second);
    const me = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: r1.json().data.token });
    expect(me.json().data.email).toBe('rot@example.com');
    const r2 = await refresh(second);
    expect(r2.statusCode).toBe(200);
  });

  it('ends the whole family when a rotated token is presented again (theft detection)', async () => {
    await createUser(t, 'theft@example.com', PASSWORD, { main: 'viewer' });
    const loggedIn = (await login('theft@example.com')).json().data;
    const stolen = loggedIn.refreshToken;
    const rotated = (await refresh(stolen)).json().data;
    const replay = await refresh(stolen);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().errors[0].message).toMatch(/already used/);
    // The legitimate holder's newer token and its access token die with the family.
    expect((await refresh(rotated.refreshToken)).statusCode).toBe(401);
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: rotated.token })).statusCode).toBe(401);
    const events = await sql<{ type: string; reason: string | null }>`
      select type, data->>'reason' as reason from events where stream_id = ${`_system/session/${stolen.slice(5).split('.')[0]}`}
      order by stream_version`.execute(t.deps.database.owner);
    expect(events.rows.map((e) => e.type)).toEqual(['SessionStarted', 'SessionRefreshed', 'SessionRevoked']);
    expect(events.rows[2]!.reason).toBe('reuse');
  });

  it('refuses a forged or malformed token without touching any session', async () => {
    const real = (await login(ADMIN.email, ADMIN.password)).json().data.refreshToken as string;
    const [sid] = real.slice(5).split('.');
    const forged = `svcr_${sid}.1.${'A'.repeat(43)}`;
    expect((await refresh(forged)).statusCode).toBe(401);
    expect((await refresh('nonsense')).statusCode).toBe(401);
    // A forged token naming an older generation must not end the family (no revocation by guessing).
    expect((await refresh(`svcr_${sid}.0.${'B'.repeat(43)}`)).statusCode).toBe(401);
    expect((await refresh(real)).statusCode).toBe(200);
  });

  it('takes the cookie only with the X-Svc-Refresh header (CSRF guard)', async () => {
    await createUser(t, 'cookie@example.com', PASSWORD, { main: 'viewer' });
    const token = (await login('cookie@example.com')).json().data.refreshToken;
    const noHeader = await t.call({ method: 'POST', url: '/api/v1/auth/refresh', cookies: { svc_refresh: token } });
    expect(noHeader.statusCode).toBe(403);
    expect(noHeader.json().errors[0].path).toEqual(['headers', 'x-svc-refresh']);
    const ok = await t.call({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      cookies: { svc_refresh: token },
      headers: { 'x-svc-refresh': '1' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('ends sessions past their lifetime', async () => {
    const clock = new ManualClock(new Date());
    const u = await createTestApp({ env: { REFRESH_TOKEN_TTL_S: '3600' }, clock });
    try {
      await u.setup();
      const l = (await u.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN })).json().data;
      const again = (token: string) =>
        u.call({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken: token } });
      clock.advance(3000 * 1000);
      const inTime = await again(l.refreshToken);
      expect(inTime.statusCode).toBe(200);
      clock.advance(601 * 1000);
      expect((await again(inTime.json().data.refreshToken)).statusCode).toBe(401);
      const reasons = await sql<{ reason: string }>`
        select data->>'reason' as reason from events where type = 'SessionRevoked'`.execute(u.deps.database.owner);
      expect(reasons.rows.map((r) => r.reason)).toContain('expired');
    } finally {
      await u.close();
    }
  });
});

describe('POST /api/v1/auth/logout', () => {
  it('revokes the family, clears the cookie, and kills the session access token', async () => {
    await createUser(t, 'bye@example.com', PASSWORD, { main: 'viewer' });
    const d = (await login('bye@example.com')).json().data;
    const res = await t.call({ method: 'POST', url: '/api/v1/auth/logout', payload: { refreshToken: d.refreshToken } });
    expect(res.statusCode).toBe(200);
    expect(cookieOf(res)).toMatch(/svc_refresh=;/);
    expect((await refresh(d.refreshToken)).statusCode).toBe(401);
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: d.token })).statusCode).toBe(401);
  });

  it('needs the CSRF header for a cookie, and ends the bearer session without any token', async () => {
    await createUser(t, 'bye2@example.com', PASSWORD, { main: 'viewer' });
    const d = (await login('bye2@example.com')).json().data;
    const csrf = await t.call({ method: 'POST', url: '/api/v1/auth/logout', cookies: { svc_refresh: d.refreshToken } });
    expect(csrf.statusCode).toBe(403);
    const res = await t.call({ method: 'POST', url: '/api/v1/auth/logout', as: d.token });
    expect(res.statusCode).toBe(200);
    expect((await refresh(d.refreshToken)).statusCode).toBe(401);
  });
});

describe('POST /api/v1/me/change-password', () => {
  it('needs the current password, applies the policy, revokes every session and older token, and logs in anew', async () => {
    await createUser(t, 'chg@example.com', PASSWORD, { main: 'editor' });
    const a = (await login('chg@example.com')).json().data;
    const b = (await login('chg@example.com')).json().data;
    const wrong = await t.call({
      method: 'POST',
      url: '/api/v1/me/change-password',
      as: a.token,
      payload: { currentPassword: 'nope', newPassword: 'Another-pass-5555!' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().errors[0].path).toEqual(['currentPassword']);
    const weak = await t.call({
      method: 'POST',
      url: '/api/v1/me/change-password',
      as: a.token,
      payload: { currentPassword: PASSWORD, newPassword: 'short' },
    });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['newPassword'] });
    const ok = await t.call({
      method: 'POST',
      url: '/api/v1/me/change-password',
      as: a.token,
      payload: { currentPassword: PASSWORD, newPassword: 'Another-pass-5555!' },
    });
    expect(ok.statusCode).toBe(200);
    for (const old of [a, b]) {
      expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: old.token })).statusCode).toBe(401);
      expect((await refresh(old.refreshToken)).statusCode).toBe(401);
    }
    const fresh = ok.json().data;
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: fresh.token })).statusCode).toBe(200);
    expect((await login('chg@example.com')).statusCode).toBe(401);
    expect((await login('chg@example.com', 'Another-pass-5555!')).statusCode).toBe(200);
  });
});

describe('sessions', () => {
  it('lists the caller live sessions redacted, marks the current one, and revokes one or all', async () => {
    await createUser(t, 'many@example.com', PASSWORD, { main: 'viewer' });
    const a = (await login('many@example.com', PASSWORD, { 'user-agent': 'Browser A' })).json().data;
    const b = (await login('many@example.com', PASSWORD, { 'user-agent': 'Browser B' })).json().data;
    const list = await t.call({ method: 'GET', url: '/api/v1/me/sessions', as: a.token });
    const sessions = list.json().data;
    expect(sessions).toHaveLength(3); // createUser logged in once too
    expect(JSON.stringify(sessions)).not.toContain('svcr_');
    const current = sessions.find((s: { current: boolean }) => s.current);
    expect(current.userAgent).toBe('Browser A');
    expect(current.ip).toBe('127.0.0.0/24');
    const other = sessions.find((s: { userAgent: string }) => s.userAgent === 'Browser B');
    expect((await t.call({ method: 'DELETE', url: `/api/v1/me/sessions/${other.id}`, as: a.token })).statusCode).toBe(
      200,
    );
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: b.token })).statusCode).toBe(401);
    const all = await t.call({ method: 'DELETE', url: '/api/v1/me/sessions', as: a.token });
    expect(all.json().data.revoked).toBe(2);
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: a.token })).statusCode).toBe(401);
  });

  it('does not let a user end someone else session', async () => {
    await createUser(t, 'mine@example.com', PASSWORD, { main: 'viewer' });
    const mine = (await login('mine@example.com')).json().data;
    const adminSessions = (await t.call({ method: 'GET', url: '/api/v1/me/sessions', as: admin })).json().data;
    const res = await t.call({ method: 'DELETE', url: `/api/v1/me/sessions/${adminSessions[0].id}`, as: mine.token });
    expect(res.statusCode).toBe(404);
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: admin })).statusCode).toBe(200);
  });

  it('lets a site admin see and end sessions of the site members only', async () => {
    const siteAdmin = await createUser(t, 'sa@example.com', PASSWORD, { main: 'site_admin' });
    await createUser(t, 'member@example.com', PASSWORD, { main: 'viewer' });
    await createUser(t, 'outsider@example.com', PASSWORD, { other: 'viewer' });
    const member = (await login('member@example.com')).json().data;
    const outsider = (await login('outsider@example.com')).json().data;
    const list = await t.call({
      method: 'GET',
      url: `/api/v1/users/${member.user.id}/sessions`,
      as: siteAdmin,
      site: 'main',
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.length).toBeGreaterThanOrEqual(1);
    const outsiderList = await t.call({
      method: 'GET',
      url: `/api/v1/users/${outsider.user.id}/sessions`,
      as: siteAdmin,
      site: 'main',
    });
    expect(outsiderList.statusCode).toBe(404);
    const adminId = (await t.call({ method: 'GET', url: '/api/v1/auth/me', as: admin })).json().data.id;
    expect(
      (await t.call({ method: 'GET', url: `/api/v1/users/${adminId}/sessions`, as: siteAdmin, site: 'main' }))
        .statusCode,
    ).toBe(404);
    const sid = list.json().data[0].id;
    const viewer = await t.call({ method: 'DELETE', url: `/api/v1/sessions/${sid}`, as: member.token, site: 'main' });
    expect(viewer.statusCode).toBe(403);
    const otherSid = (await t.call({ method: 'GET', url: '/api/v1/me/sessions', as: outsider.token })).json().data[0]
      .id;
    expect(
      (await t.call({ method: 'DELETE', url: `/api/v1/sessions/${otherSid}`, as: siteAdmin, site: 'main' })).statusCode,
    ).toBe(404);
    expect(
      (await t.call({ method: 'DELETE', url: `/api/v1/sessions/${sid}`, as: siteAdmin, site: 'main' })).statusCode,
    ).toBe(200);
    const after = await t.call({
      method: 'GET',
      url: `/api/v1/users/${member.user.id}/sessions`,
      as: siteAdmin,
      site: 'main',
    });
    expect(after.json().data.map((s: { id: string }) => s.id)).not.toContain(sid);
  });
});

describe("managing a person's sessions needs a rank at least theirs", () => {
  it("refuses a site_admin the sessions of the site's admin (403), and lets an admin and a peer site_admin manage them", async () => {
    const siteAdmin = await createUser(t, 'rank-sa@example.com', PASSWORD, { main: 'site_admin' });
    await createUser(t, 'rank-admin@example.com', PASSWORD, { main: 'admin' });
    await createUser(t, 'rank-peer@example.com', PASSWORD, { main: 'site_admin' });
    const siteOwner = await createUser(t, 'rank-owner@example.com', PASSWORD, { main: 'admin' });
    const high = (await login('rank-admin@example.com')).json().data;
    const peer = (await login('rank-peer@example.com')).json().data;
    const list = (as: string, id: string) =>
      t.call({ method: 'GET', url: `/api/v1/users/${id}/sessions`, as, site: 'main' });
    const revoke = (as: string, sid: string) =>
      t.call({ method: 'DELETE', url: `/api/v1/sessions/${sid}`, as, site: 'main' });

    const refused = await list(siteAdmin, high.user.id);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().errors[0]).toMatchObject({ code: 'PERMISSION_DENIED' });
    const [highSession] = (await t.call({ method: 'GET', url: '/api/v1/me/sessions', as: high.token })).json().data;
    const revoked = await revoke(siteAdmin, highSession.id);
    expect(revoked.statusCode, revoked.body).toBe(403);
    expect(revoked.json().errors[0]).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: high.token })).statusCode).toBe(200);

    // Equal rank: a site_admin manages another site_admin's sessions; the site's admin manages anyone's there.
    const peers = await list(siteAdmin, peer.user.id);
    expect(peers.statusCode, peers.body).toBe(200);
    expect((await list(siteOwner, high.user.id)).statusCode).toBe(200);
    expect((await revoke(siteOwner, highSession.id)).statusCode).toBe(200);
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/me', as: high.token })).statusCode).toBe(401);
    const [peerSession] = peers.json().data;
    expect((await revoke(siteAdmin, peerSession.id)).statusCode).toBe(200);
  }, 60_000);
});

describe('preferences', () => {
  it('shallow-merges a validated blob and falls back to the site default save action', async () => {
    const token = await createUser(t, 'prefs@example.com', PASSWORD, { main: 'editor' });
    const patch = (payload: Record<string, unknown>) =>
      t.call({ method: 'PATCH', url: '/api/v1/me/preferences', as: token, payload, site: 'main' });
    expect((await patch({ theme: 'dark', sidebar: { open: true } })).json().data).toEqual({
      theme: 'dark',
      sidebar: { open: true },
    });
    const merged = await patch({ saveAction: 'stay' });
    expect(merged.json().data).toEqual({ theme: 'dark', sidebar: { open: true }, saveAction: 'stay' });
    expect(merged.json().meta.effective.saveAction).toBe('stay');
    const bad = await patch({ saveAction: 'publish' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'saveAction'] });
    await t.call({
      method: 'PATCH',
      url: '/api/v1/site',
      as: admin,
      site: 'main',
      payload: { settings: { default_save_action: 'create_new' } },
    });
    const cleared = await patch({ saveAction: null });
    expect(cleared.json().data).toEqual({ theme: 'dark', sidebar: { open: true } });
    expect(cleared.json().meta.effective.saveAction).toBe('create_new');
    const got = await t.call({ method: 'GET', url: '/api/v1/me/preferences', as: token });
    expect(got.json().data).toEqual({ theme: 'dark', sidebar: { open: true } });
  });
});

describe('token checks across nodes', () => {
  it('sees a revocation written by another node at once when the auth cache is off', async () => {
    const u = await createTestApp({ env: { SVC_AUTH_CACHE_MS: '0' } });
    try {
      const token = await u.setup();
      expect((await u.call({ method: 'GET', url: '/api/v1/auth/me', as: token })).statusCode).toBe(200);
      const sid = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
      // Another node: its own store on the same database (this node's listeners never hear of it).
      const other = new PgEventStore(
        u.deps.db,
        allProjectors().filter((p) => p.mode === 'inline'),
      );
      await handleCommand(
        other,
        sessionDecider,
        sessionStream(sid),
        { type: 'RevokeSession', data: { sessionId: sid, reason: 'admin', by: null, now: new Date().toISOString() } },
        {
          metadata: {
            siteId: '_system',
            actor: { type: 'system', id: 'other-node' },
            correlationId: 'x',
            causationId: null,
            requestId: null,
            occurredAt: new Date().toISOString(),
          },
        },
      );
      expect((await u.call({ method: 'GET', url: '/api/v1/auth/me', as: token })).statusCode).toBe(401);
    } finally {
      await u.close();
    }
  });
});
