import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { listEnvelope } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { siteEvents } from '../../../../projections/event-log/index.ts';
import { redactSecrets } from '../redact.ts';
import { AuditEntry, AuditMeta } from './audit.schemas.ts';

const time = z.iso.datetime({ offset: true }).or(z.iso.date());
const AuditQuery = z
  .object({
    type: z.string().max(100).optional(),
    stream: z.string().max(300).optional(),
    actor: z.string().max(128).optional(),
    from: time.optional(),
    to: time.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** The `meta.next` of the previous page. */
    before: z
      .string()
      .regex(/^\d{1,19}$/)
      .optional(),
  })
  .strict();

/**
 * GET /api/v1/audit (site admins): the site's events, newest first, straight from the log. Personal data inside
 * events stays out of sight, and so does every secret (hashes of keys and passwords, seeds, recovery codes, tokens,
 * sealed values): the log keeps them, the view shows `[redacted]`.
 */
export const auditRoutes: FastifyPluginAsync<AppDeps> = async (plain, { db }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/v1/audit',
    {
      config: { caller: 'site-admin' },
      schema: {
        tags: ['audit'],
        summary: 'Read the audit log of the site',
        querystring: AuditQuery,
        response: { 200: listEnvelope(AuditEntry, AuditMeta) },
      },
    },
    async (req) => {
      const q = req.query;
      const site = siteOf(req);
      const rows = await readAsSite(db, site, (trx) => siteEvents(trx, site, { ...q, limit: q.limit + 1 }));
      const page = rows.slice(0, q.limit);
      return {
        data: page.map((r) => ({
          id: r.event_id,
          type: r.type,
          stream: r.stream_id,
          version: r.stream_version,
          actor: r.metadata.actor,
          correlationId: r.metadata.correlationId,
          time: new Date(r.created_at).toISOString(),
          // Every event's data is a JSON object.
          data: redactSecrets(r.data) as Record<string, unknown>,
        })),
        meta: { limit: q.limit, next: rows.length > q.limit ? page.at(-1)!.pos : null },
      };
    },
  );
};
