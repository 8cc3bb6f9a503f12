import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { tmRights } from './tm.rights.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, errorEnvelope } from '../../../kernel/http/envelope.ts';
import { importEntries } from '../tm.commands.ts';
import { TmxTooLarge } from '../tm.errors.ts';
import { exportTmx } from '../tmx.export.ts';
import { parseTmx } from '../tmx.parse.ts';
import { lang } from './lang.ts';
import { ExportQuery, ImportResult, TmxDocument } from './tm.schemas.ts';

const tags = ['translation-memory'];
/** The content types a TMX document may come as. */
export const TMX_TYPES = ['application/x-tmx+xml', 'text/xml', 'application/xml'];

/** TMX 1.4b import (streamed through the parser, capped) and export (streamed page by page). */
export const tmxRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const may = tmRights(deps);
  const maxBytes = deps.config.SVC_TMX_MAX_BYTES;
  // The document reaches the handler as the request's stream: the parser reads it as it arrives. Other types: 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(TMX_TYPES, (_req, payload, done) => done(null, payload));

  app.post(
    '/api/v1/tm/import',
    {
      schema: {
        tags,
        summary: 'Import a TMX 1.4b document (application/x-tmx+xml or text/xml): entries upserted, few appends',
        response: { 200: dataEnvelope(ImportResult), 413: errorEnvelope(413), 415: errorEnvelope(415) },
      },
    },
    async (req) => {
      await may(req, 'create');
      await may(req, 'update');
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > maxBytes) throw new TmxTooLarge({ maxBytes });
      const content = await parseTmx(req.body as Readable, maxBytes);
      const counts = await importEntries(deps, commandContext(req, deps.clock), content.entries);
      return { data: { ...counts, skipped: counts.skipped + content.skipped } };
    },
  );

  app.get(
    '/api/v1/tm/export',
    {
      schema: {
        tags,
        summary: 'Export the memory (of a language pair when given) as a TMX 1.4b document, streamed',
        querystring: ExportQuery,
        response: { 200: TmxDocument },
      },
    },
    async (req, reply) => {
      await may(req, 'read');
      const filter = { source: lang(req.query.source), target: lang(req.query.target) };
      reply.type('application/x-tmx+xml; charset=utf-8');
      reply.header('content-disposition', 'attachment; filename="translation-memory.tmx"');
      return reply.send(Readable.from(exportTmx(deps, siteOf(req), filter)));
    },
  );
};
