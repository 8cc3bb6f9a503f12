import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { CollectionRecord } from '../../../../projections/schema/index.ts';
import type { FieldDef } from '../../schema/index.ts';
import type { ItemValues } from '../item.events.ts';
import { valueProblems, withDefaults } from '../item.values.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import { findDependents } from '../../../../projections/item-documents/index.ts';
import { dependentRecordsExist } from '../item.errors.ts';
import { itemContext, withNullFields } from './item-context.ts';
import { CollectionParams, ItemParams } from './item-params.ts';
import { ItemsCreatedBody, ItemWriteBody } from './items.schemas.ts';
import { NoContent } from '../../../kernel/http/envelope.ts';

const Values = z.record(z.string(), z.unknown());
const CreateBody = z.union([Values, z.array(Values).min(1).max(500)]);

/** Create (single and bulk), patch, replace and soft delete. */
export const itemWriteRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const tags = ['items'];
  const { schemaOf, send, sendMany, read, seal, present, authorizeWrite, checkValidation, readableSamples } =
    itemContext(deps);

  app.post(
    '/api/v1/items/:collection',
    {
      schema: {
        tags,
        summary: 'Create an item (or several: an array body)',
        params: CollectionParams,
        body: CreateBody,
        response: { 201: ItemsCreatedBody },
      },
    },
    async (req, reply) => {
      const s = await schemaOf(req, req.params.collection);
      const { collection, fields } = s;
      if (collection.singleton)
        throw new DomainError(
          'VALIDATION_FAILED',
          `${collection.name} is a singleton: PATCH /items/${collection.name}`,
          {
            path: ['collection'],
          },
        );
      const bodies = Array.isArray(req.body) ? req.body : [req.body];
      const bulk = Array.isArray(req.body);
      const scope = await authorizeWrite(req, s, 'create', null);
      // Presets of the caller's create permission fill what the body leaves out; the body must stay writable.
      const prepared = bodies.map((b, i) => {
        const split = splitId(collection, b, i);
        const { id: _presetId, ...presets } = scope.presets;
        return { id: split.id, values: { ...presets, ...split.values }, given: split.values, index: i };
      });
      for (const p of prepared) {
        await authorizeWrite(req, s, 'create', null, p.given, bulk ? [String(p.index)] : []);
        await checkValidation(req, s, p.id, withDefaults(fields, p.values), scope);
      }
      // Bulk is all or nothing: validate every item first, then write.
      const problems = prepared.flatMap((p) => validationOf(p.values, fields, p.index, Array.isArray(req.body)));
      if (problems.length)
        throw new DomainError('VALIDATION_FAILED', `${problems.length} invalid value(s)`, { errors: problems });
      // One atomic append over every new item's stream: a crash or a conflict leaves none of them.
      const written = await sendMany(
        req,
        prepared.map((p) => ({
          collection: collection.name,
          id: p.id,
          make: (ctx) => ({
            type: 'CreateItem',
            data: { ...ctx, values: seal(req, s, p.id, p.values, Array.isArray(req.body) ? [String(p.index)] : []) },
          }),
        })),
        () => fields,
      );
      const ids = prepared.map((p) => p.id);
      reply.status(201);
      // The new records come from the events just written: no read-back round trips.
      const records = await present(
        req,
        s,
        written.map((w, i) => {
          const e = w.events[0]!.data as { values: Record<string, unknown>; at: string; by: string };
          const audit = { created_at: e.at, created_by: e.by, updated_at: e.at, updated_by: e.by };
          return withNullFields(s, { ...e.values, id: ids[i]!, ...audit });
        }),
      );
      const revisionIds = written.map((w) => w.events.at(-1)?.eventId ?? null);
      return Array.isArray(req.body)
        ? { data: records, meta: { revisionIds } }
        : { data: records[0], meta: { revisionId: revisionIds[0] } };
    },
  );

  /** PATCH (changed keys) and PUT (the whole item) differ only in their command. */
  for (const [method, type] of [
    ['patch', 'UpdateItem'],
    ['put', 'ReplaceItem'],
  ] as const) {
    app[method](
      '/api/v1/items/:collection/:id',
      {
        schema: {
          tags,
          summary: method === 'patch' ? 'Update an item' : 'Replace an item',
          params: ItemParams,
          body: Values,
          response: { 200: ItemWriteBody },
        },
      },
      async (req) => {
        const s = await schemaOf(req, req.params.collection);
        const { collection, id } = req.params;
        const { id: _ignored, ...values } = req.body;
        const scope = await authorizeWrite(req, s, 'update', id, values);
        if (scope.validation.length) {
          const current = (await read(req, collection, id))?.record ?? {};
          await checkValidation(req, s, id, type === 'UpdateItem' ? { ...current, ...values } : values, scope);
        }
        const sealed = seal(req, s, id, values);
        const res = await send(
          req,
          collection,
          id,
          (ctx) =>
            type === 'UpdateItem'
              ? { type, data: { ...ctx, changes: sealed } }
              : { type, data: { ...ctx, values: sealed } },
          s.fields,
        );
        return {
          data: await present(req, s, withNullFields(s, (await read(req, collection, id))!.record)),
          meta: { version: res.version, revisionId: res.events.at(-1)?.eventId ?? null },
        };
      },
    );
  }

  app.delete(
    '/api/v1/items/:collection/:id',
    { schema: { tags, summary: 'Delete an item', params: ItemParams, response: { 204: NoContent } } },
    async (req, reply) => {
      const s = await schemaOf(req, req.params.collection);
      await authorizeWrite(req, s, 'delete', req.params.id);
      const { fields, schema } = s;
      // Restrict relations block; set null and cascade wait for resolve-dependents (spec "Items").
      const dependents = await withSite(deps.db, siteOf(req), (trx) =>
        findDependents(trx, siteOf(req), schema, req.params.collection, req.params.id),
      );
      // An item that is not there answers 404 (from the command) even when references to its id remain.
      if (dependents.some((d) => d.onDelete === 'restrict') && (await read(req, req.params.collection, req.params.id)))
        throw dependentRecordsExist(await readableSamples(req, schema, dependents));
      await send(req, req.params.collection, req.params.id, (ctx) => ({ type: 'DeleteItem', data: ctx }), fields);
      return reply.status(204).send();
    },
  );
};

/** The record id: random by default, a UUID for uuid keys, given by the client for integer keys. */
function splitId(c: CollectionRecord, body: ItemValues, index: number): { id: string; values: ItemValues } {
  const { id, ...values } = body;
  if (c.primaryKeyType === 'integer' || c.primaryKeyType === 'bigInteger') {
    if (!Number.isSafeInteger(id)) {
      throw new DomainError('VALIDATION_FAILED', 'this collection has integer keys: send an integer id', {
        path: [String(index), 'id'],
      });
    }
    return { id: String(id), values };
  }
  if (id !== undefined && (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(id))) {
    throw new DomainError('VALIDATION_FAILED', 'id must be 1–128 letters, digits, _ or -', {
      path: [String(index), 'id'],
    });
  }
  return { id: (id as string | undefined) ?? (c.primaryKeyType === 'uuid' ? randomUUID() : newId()), values };
}

function validationOf(values: ItemValues, fields: FieldDef[], index: number, bulk: boolean) {
  return valueProblems(fields, withDefaults(fields, values), 'full').map((p) => ({
    ...p,
    path: bulk ? [String(index), ...p.path] : p.path,
  }));
}
