import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { tmRights } from './tm.rights.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, errorEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { listEntries } from '../../../../projections/tm/index.ts';
import { deleteEntry, updateEntry, upsertEntry } from '../tm.commands.ts';
import { DEFAULT_THRESHOLD, lookupMatch } from '../tm.lookup.ts';
import { translateText } from '../tm.translate.ts';
import { providerFromConfig } from '../translate/provider.ts';
import { glossaryRoutes } from './glossary.routes.ts';
import { lang } from './lang.ts';
import {
  EntryListQuery,
  EntryPatchBody,
  EntryUpsertBody,
  IdParams,
  ListMeta,
  LookupBody,
  LookupResult,
  TmEntryBody,
  TranslateBody,
  TranslateResult,
} from './tm.schemas.ts';
import { tmxRoutes } from './tmx.routes.ts';

const BASE = '/api/v1/tm';
const tags = ['translation-memory'];

/** The translation memory of the request's site: entries, lookup and translation, the glossary, TMX. */
export const tmRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const may = tmRights(deps);
  const provider = providerFromConfig(deps.config);

  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: 'List translation-memory entries',
        querystring: EntryListQuery,
        response: { 200: listEnvelope(TmEntryBody, ListMeta) },
      },
    },
    async (req) => {
      await may(req, 'read');
      const siteId = siteOf(req);
      const q = { ...req.query, source: lang(req.query.source), target: lang(req.query.target) };
      const { rows, total } = await readAsSite(deps.db, siteId, (db) => listEntries(db, siteId, q));
      return { data: rows, meta: { total, limit: q.limit, offset: q.offset } };
    },
  );

  app.post(
    BASE,
    {
      schema: {
        tags,
        summary: 'Upsert an entry by language pair and normalised source (201 created, 200 updated)',
        body: EntryUpsertBody,
        response: { 200: dataEnvelope(TmEntryBody, 'Updated'), 201: dataEnvelope(TmEntryBody, 'Created') },
      },
    },
    async (req, reply) => {
      await may(req, 'create');
      await may(req, 'update');
      const b = req.body;
      const input = { ...b, sourceLang: lang(b.sourceLang)!, targetLang: lang(b.targetLang)! };
      const { record, created } = await upsertEntry(deps, commandContext(req, deps.clock), input);
      reply.status(created ? 201 : 200);
      return { data: record };
    },
  );

  app.patch(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary: 'Edit an entry (target, quality, source)',
        params: IdParams,
        body: EntryPatchBody,
        response: { 200: dataEnvelope(TmEntryBody) },
      },
    },
    async (req) => {
      await may(req, 'update');
      const ctx = commandContext(req, deps.clock);
      return { data: await updateEntry(deps, ctx, { entryId: req.params.id, changes: req.body }) };
    },
  );

  app.delete(
    `${BASE}/:id`,
    { schema: { tags, summary: 'Delete an entry', params: IdParams, response: { 204: NoContent } } },
    async (req, reply) => {
      await may(req, 'delete');
      await deleteEntry(deps, commandContext(req, deps.clock), { entryId: req.params.id });
      return reply.status(204).send();
    },
  );

  app.post(
    `${BASE}/lookup`,
    {
      schema: {
        tags,
        summary: `The best entry for a text, scored 0–100 (default threshold ${DEFAULT_THRESHOLD}), or null`,
        body: LookupBody,
        response: { 200: dataEnvelope(LookupResult) },
      },
    },
    async (req) => {
      await may(req, 'read');
      const b = req.body;
      const match = await lookupMatch(deps, siteOf(req), {
        query: b.query,
        sourceLang: lang(b.sourceLang)!,
        targetLang: lang(b.targetLang)!,
        threshold: b.threshold ?? DEFAULT_THRESHOLD,
      });
      return { data: { match } };
    },
  );

  app.post(
    `${BASE}/translate`,
    {
      schema: {
        tags,
        summary: 'Translate a text: memory, then glossary, then the configured provider',
        body: TranslateBody,
        response: { 200: dataEnvelope(TranslateResult), 502: errorEnvelope(502) },
      },
    },
    async (req) => {
      // A translation may spend the provider's paid quota: it needs the right to add to the memory, not only to read.
      await may(req, 'read');
      await may(req, 'create');
      const b = req.body;
      const input = { text: b.text, from: lang(b.from)!, to: lang(b.to)! };
      return { data: await translateText(deps, siteOf(req), provider, input) };
    },
  );

  await app.register(glossaryRoutes, deps);
  await app.register(tmxRoutes, deps);
};
