import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import type { ActorRef } from '../../../kernel/es/event.ts';
import { redactSecrets } from '../redact.ts';

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

interface Row {
  /** The global position as text (a bigint), for the `before` cursor. */
  pos: string;
  event_id: string;
  type: string;
  stream_id: string;
  stream_version: number;
  data: unknown;
  metadata: { actor: ActorRef; correlationId: string };
  created_at: Date;
}

/**
 * GET /api/v1/audit (site admins): the site's events, newest first, straight from the log. Personal data inside
 * events stays out of sight, and so does every secret (hashes of keys and passwords, seeds, recovery codes, tokens,
 * sealed values): the log keeps them, the view shows `[redacted]`.
 */
export const auditRoutes: FastifyPluginAsync<AppDeps> = async (plain, { db }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/v1/audit',
    { config: { caller: 'site-admin' }, schema: { tags: ['audit'], querystring: AuditQuery } },
    async (req) => {
      const q = req.query;
      const site = siteOf(req);
      const rows = await withSite(db, site, (trx) =>
        sql<Row>`
        select global_position::text as pos, event_id, type, stream_id, stream_version, data, metadata, created_at from events
        where site_id = ${site}
          ${q.type ? sql`and type = ${q.type}` : sql``}
          ${q.stream ? sql`and stream_id = ${q.stream}` : sql``}
          ${q.actor ? sql`and metadata -> 'actor' ->> 'id' = ${q.actor}` : sql``}
          ${q.from ? sql`and created_at >= ${new Date(q.from).toISOString()}` : sql``}
          ${q.to ? sql`and created_at <= ${new Date(q.to).toISOString()}` : sql``}
          ${q.before ? sql`and global_position < ${q.before}::bigint` : sql``}
        order by global_position desc limit ${q.limit + 1}`.execute(trx),
      );
      const page = rows.rows.slice(0, q.limit);
      return {
        data: page.map((r) => ({
          id: r.event_id,
          type: r.type,
          stream: r.stream_id,
          version: r.stream_version,
          actor: r.metadata.actor,
          correlationId: r.metadata.correlationId,
          time: new Date(r.created_at).toISOString(),
          data: redactSecrets(r.data),
        })),
        meta: { limit: q.limit, next: rows.rows.length > q.limit ? page.at(-1)!.pos : null },
      };
    },
  );
};
