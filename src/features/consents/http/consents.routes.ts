import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { own } from '../../../kernel/safe/keys.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { listConsents } from '../../../../projections/consents/index.ts';
import { findUserById } from '../../../../projections/users/index.ts';
import { consentAt, consentHistory, restrictionOf, setConsent, setRestriction } from '../consent.commands.ts';
import type { ConsentRecord } from '../consent.decider.ts';
import { PersonOnly } from '../consent.errors.ts';
import { CONSENT_TYPES, type ConsentType } from '../../../contracts/consents/consent.events.ts';
import { UserNotMember } from '../consent.errors.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const TypeParams = z.object({ type: z.enum(CONSENT_TYPES) });
const UserParams = z.object({ id: pathId(200) });
/** A page of a history (as item revisions page theirs): `limit` with `offset`, or `page`. */
const HistoryPage = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(25),
    offset: z.coerce.number().int().min(0).default(0),
    page: z.coerce.number().int().min(1).optional(),
  })
  .strict();
const HistoryMeta = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
const AsOf = z.object({ asOf: z.iso.datetime({ offset: true }).optional() }).strict();
const ConsentBody = z
  .object({ granted: z.boolean(), source: z.string().min(1).max(200), version: z.string().min(1).max(100) })
  .strict();
const RestrictionBody = z.object({ restricted: z.boolean(), reason: z.string().min(1).max(1000).optional() }).strict();

const Consent = z
  .object({
    consentType: z.enum(CONSENT_TYPES),
    granted: z.boolean(),
    grantedAt: z.string().nullable(),
    withdrawnAt: z.string().nullable(),
    source: z.string().nullable(),
    version: z.string().nullable(),
    updatedAt: z.string().nullable(),
  })
  .meta({ id: 'Consent' });
const ConsentChange = z.object({
  event: z.enum(['consent_granted', 'consent_withdrawn']),
  granted: z.boolean(),
  source: z.string(),
  version: z.string(),
  at: z.string(),
  actor: z.object({ type: z.string(), id: z.string() }),
  correlationId: z.string(),
});
const Restriction = z
  .object({ restricted: z.boolean(), reason: z.string().nullable(), updatedAt: z.string().nullable() })
  .meta({ id: 'Restriction' });
const tags = ['privacy'];

/** A type never chosen: not granted, no times (the person was never asked, or never answered). */
const never = (consentType: ConsentType) => ({
  consentType,
  granted: false,
  grantedAt: null,
  withdrawnAt: null,
  source: null,
  version: null,
  updatedAt: null,
});
const shown = (type: ConsentType, r: ConsentRecord | null) => (r ? { ...r, consentType: type } : never(type));

/**
 * Consents (spec "Consent") and restriction of processing (GDPR Art. 18) of the signed-in person on the active site.
 * Each choice is an event; `asOf` answers what stood at a time, `history` lists every choice with its actor.
 */
export const consentsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { clock, db } = deps;

  /** The person behind the request: a user with an account (not an API key, not an external subject without one). */
  const person = async (req: FastifyRequest): Promise<string> => {
    const actor = req.actor;
    if (actor?.type !== 'user' || actor.impersonator) throw new PersonOnly();
    if (!(await findUserById(db, actor.id))) throw new PersonOnly();
    return actor.id;
  };
  const consentsOf = async (siteId: string, userId: string, asOf?: string) => {
    if (asOf) {
      const at = new Date(asOf);
      return Promise.all(CONSENT_TYPES.map(async (t) => shown(t, await consentAt(deps, siteId, userId, t, at))));
    }
    const rows = await readAsSite(db, siteId, (trx) => listConsents(trx, siteId, userId));
    const byType = new Map(rows.map((r) => [r.consentType, r]));
    return CONSENT_TYPES.map((t) => {
      const r = byType.get(t);
      return r ? { ...r, consentType: t } : never(t);
    });
  };

  app.get(
    '/api/v1/me/consents',
    {
      schema: {
        tags,
        summary: 'Every consent type with the caller’s current choice (asOf: as it stood then)',
        querystring: AsOf,
        response: { 200: listEnvelope(Consent, z.object({ total: z.number().int() })) },
      },
    },
    async (req) => {
      const data = await consentsOf(siteOf(req), await person(req), req.query.asOf);
      return { data, meta: { total: data.length } };
    },
  );

  app.get(
    '/api/v1/me/consents/:type',
    {
      schema: {
        tags,
        summary: 'One consent type (asOf: as it stood then)',
        params: TypeParams,
        querystring: AsOf,
        response: { 200: dataEnvelope(Consent) },
      },
    },
    async (req) => {
      const userId = await person(req);
      const { type } = req.params;
      const at = req.query.asOf ? new Date(req.query.asOf) : undefined;
      return { data: shown(type, await consentAt(deps, siteOf(req), userId, type, at)) };
    },
  );

  app.put(
    '/api/v1/me/consents/:type',
    {
      schema: {
        tags,
        summary: 'Grant or withdraw a consent',
        params: TypeParams,
        body: ConsentBody,
        response: { 200: dataEnvelope(Consent) },
      },
    },
    async (req) => {
      const userId = await person(req);
      const { type } = req.params;
      const record = await setConsent(deps, commandContext(req, clock), { userId, consentType: type, ...req.body });
      return { data: shown(type, record) };
    },
  );

  app.get(
    '/api/v1/me/consents/:type/history',
    {
      schema: {
        tags,
        summary: 'Every choice on one consent type, oldest first (the audit events), a page at a time',
        params: TypeParams,
        querystring: HistoryPage,
        response: { 200: listEnvelope(ConsentChange, HistoryMeta) },
      },
    },
    async (req) => {
      const { limit, page } = req.query;
      const offset = page ? (page - 1) * limit : req.query.offset;
      const userId = await person(req);
      const { changes, total } = await consentHistory(deps, siteOf(req), userId, req.params.type, { limit, offset });
      return { data: changes, meta: { total, limit, offset } };
    },
  );

  app.get(
    '/api/v1/me/restriction',
    {
      schema: {
        tags,
        summary: 'Whether the caller restricted processing',
        response: { 200: dataEnvelope(Restriction) },
      },
    },
    async (req) => ({ data: await restrictionOf(deps, siteOf(req), await person(req)) }),
  );

  app.put(
    '/api/v1/me/restriction',
    {
      schema: {
        tags,
        summary: 'Restrict the processing of the caller’s data (GDPR Art. 18), or lift it',
        body: RestrictionBody,
        response: { 200: dataEnvelope(Restriction) },
      },
    },
    async (req) => {
      const userId = await person(req);
      const input = {
        userId,
        restricted: req.body.restricted,
        reason: req.body.restricted ? (req.body.reason ?? null) : null,
      };
      return { data: await setRestriction(deps, commandContext(req, clock), input) };
    },
  );

  // The controller's view: what a member of the site chose, now or at a time (site admins).
  app.get(
    '/api/v1/users/:id/consents',
    {
      config: { caller: 'site-admin' },
      schema: {
        tags,
        summary: "A member's consents on the active site (asOf: as they stood then)",
        params: UserParams,
        querystring: AsOf,
        response: { 200: listEnvelope(Consent, z.object({ total: z.number().int() })) },
      },
    },
    async (req) => {
      const siteId = siteOf(req);
      const user = await findUserById(db, req.params.id);
      if (!user || !own(user.roles, siteId)) throw new UserNotMember({ id: req.params.id });
      const data = await consentsOf(siteId, user.userId, req.query.asOf);
      return { data, meta: { total: data.length } };
    },
  );
};
