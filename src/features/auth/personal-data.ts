import type { AppDeps } from '../../deps.ts';
import type { PersonalDataPart } from '../../platform/privacy/personal-data.ts';
import { own } from '../../kernel/safe/keys.ts';
import { findUserById } from '../../../projections/users/index.ts';
import { redactIp, sessionsOfUser } from '../../../projections/sessions/index.ts';

const PAGE = 500;

/** The browser or client family of a user agent, never the whole string (versions and platforms identify a device). */
export function userAgentFamily(ua: string | null): string | null {
  if (!ua) return null;
  const families: [RegExp, string][] = [
    [/\bEdg(e|A|iOS)?\//, 'Edge'],
    [/\b(OPR|Opera)\//, 'Opera'],
    [/\bFirefox\//, 'Firefox'],
    [/\b(Chrome|CriOS|Chromium)\//, 'Chrome'],
    [/\bSafari\//, 'Safari'],
    [/^curl\//, 'curl'],
    [/^PostmanRuntime\//, 'Postman'],
    [/^(node|undici|axios|node-fetch)\b/i, 'Node.js'],
    [/^python-requests\//, 'Python'],
  ];
  return families.find(([re]) => re.test(ua))?.[1] ?? 'other';
}

/** The account's own parts of a personal-data export: the profile, the memberships and the sessions. */
export function authPersonalData(deps: Pick<AppDeps, 'db'>): PersonalDataPart[] {
  return [
    {
      name: 'profile',
      async write(subject, out) {
        const u = await findUserById(deps.db, subject.userId);
        await out.value(
          u && {
            id: u.userId,
            email: u.email,
            firstName: u.firstName,
            lastName: u.lastName,
            status: u.status,
            instanceAdmin: u.instanceAdmin,
            preferences: u.preferences,
          },
        );
      },
    },
    {
      name: 'memberships',
      async write(subject, out) {
        const u = await findUserById(deps.db, subject.userId);
        for (const site of subject.siteIds) {
          const role = u ? own(u.roles, site) : undefined;
          if (role !== undefined) await out.item({ site, role });
        }
      },
    },
    {
      // Redacted: when, how long, and which kind of client; never token material, the full address or user agent.
      name: 'sessions',
      async write(subject, out) {
        let after: string | null = null;
        for (;;) {
          const page = await sessionsOfUser(deps.db, subject.userId, after, PAGE);
          for (const s of page)
            await out.item({
              id: s.sessionId,
              createdAt: s.createdAt,
              lastUsedAt: s.lastUsedAt,
              expiresAt: s.expiresAt,
              revokedAt: s.revokedAt,
              revokeReason: s.revokeReason,
              methods: s.amr,
              userAgentFamily: userAgentFamily(s.userAgent),
              network: redactIp(s.ip),
            });
          if (page.length < PAGE) return;
          after = page.at(-1)!.sessionId;
        }
      },
    },
  ];
}
