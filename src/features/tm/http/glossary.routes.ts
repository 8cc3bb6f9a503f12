import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { tmRights } from './tm.rights.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { listTerms } from '../../../../projections/tm/index.ts';
import { createTerm, deleteTerm, updateTerm } from '../glossary.commands.ts';
import { lang } from './lang.ts';
import { GlossaryTermBody, IdParams, ListMeta, TermCreateBody, TermListQuery, TermPatchBody } from './tm.schemas.ts';

const BASE = '/api/v1/tm/glossary';
const tags = ['translation-memory'];

/** The glossary of the request's site: terms per language pair, governed by the translation memory's rules. */
export const glossaryRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const may = tmRights(deps);

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: 'List glossary terms',
        querystring: TermListQuery,
        response: { 200: listEnvelope(GlossaryTermBody, ListMeta) },
      },
    },
    async (req) => {
      await may(req, 'read');
      const siteId = siteOf(req);
      const q = { ...req.query, source: lang(req.query.source), target: lang(req.query.target) };
      const { rows, total } = await readAsSite(deps.db, siteId, (db) => listTerms(db, siteId, q));
      return { data: rows, meta: { total, limit: q.limit, offset: q.offset } };
    },
  );

  app.post(
    BASE,
    {
      schema: {
        tags,
        summary: 'Add a glossary term (unique per language pair and normalised term)',
        body: TermCreateBody,
        response: { 201: dataEnvelope(GlossaryTermBody, 'Created') },
      },
    },
    async (req, reply) => {
      await may(req, 'create');
      const b = req.body;
      const values = { ...b, sourceLang: lang(b.sourceLang), targetLang: lang(b.targetLang) };
      const record = await createTerm(deps, commandContext(req, deps.clock), values);
      reply.status(201);
      return { data: record };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'Edit a glossary term',
        params: IdParams,
        body: TermPatchBody,
        response: { 200: dataEnvelope(GlossaryTermBody) },
      },
    },
    async (req) => {
      await may(req, 'update');
      const ctx = commandContext(req, deps.clock);
      return { data: await updateTerm(deps, ctx, { termId: req.params.id, changes: req.body }) };
    },
  );

  app.delete(
    `${BASE}/:id`,
    { schema: { tags, summary: 'Delete a glossary term', params: IdParams, response: { 204: NoContent } } },
    async (req, reply) => {
      await may(req, 'delete');
      await deleteTerm(deps, commandContext(req, deps.clock), { termId: req.params.id });
      return reply.status(204).send();
    },
  );
};
