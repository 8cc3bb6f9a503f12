import type { AppDeps } from '../../deps.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import { newId } from '../../kernel/ids.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { termIdByKey } from '../../../projections/tm/index.ts';
import { glossaryDecider, type GlossaryCommand, type GlossaryTerm } from './glossary.decider.ts';
import { GlossaryTermExists, GlossaryTermNotFound } from './tm.errors.ts';
import { glossaryTermStream, type GlossaryTermChanges, type GlossaryTermValues } from '../../contracts/tm/tm.events.ts';
import type { Ctx } from './tm.commands.ts';
import { normaliseText, textHash, type GlossaryTermRecord } from '../../contracts/tm/tm.types.ts';

type Deps = Pick<AppDeps, 'db' | 'store'>;

/** A folded term as the API shows it. */
export const termRecordOf = (t: GlossaryTerm): GlossaryTermRecord => ({
  id: t.id,
  sourceLang: t.sourceLang,
  targetLang: t.targetLang,
  term: t.term,
  translation: t.translation,
  caseSensitive: t.caseSensitive,
  createdBy: t.createdBy,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

/** 409 when another term of the pair has this normalised term (the read model's unique key backs it up). */
async function checkFree(
  deps: Deps,
  siteId: string,
  v: Omit<GlossaryTermValues, 'translation' | 'caseSensitive'>,
  self?: string,
) {
  const hash = textHash(normaliseText(v.term));
  const other = await readAsSite(deps.db, siteId, (db) =>
    termIdByKey(db, siteId, { sourceLang: v.sourceLang, targetLang: v.targetLang, hash }),
  );
  if (other && other !== self) throw new GlossaryTermExists({ termId: other });
}

const send = async (deps: Deps, ctx: Ctx, termId: string, command: GlossaryCommand, fresh = false) => {
  const opts = { metadata: ctx.metadata, ...(fresh ? { fresh } : {}) };
  return handleCommand(deps.store, glossaryDecider, glossaryTermStream(ctx.siteId, termId), command, opts);
};

/** Adds a term to the glossary of its language pair. */
export async function createTerm(deps: Deps, ctx: Ctx, values: GlossaryTermValues): Promise<GlossaryTermRecord> {
  await checkFree(deps, ctx.siteId, values);
  const termId = newId();
  const data = { ...values, termId, now: ctx.now.toISOString(), by: ctx.actor.id };
  const r = await send(deps, ctx, termId, { type: 'CreateGlossaryTerm', data }, true);
  return termRecordOf(r.state.term!);
}

/** Changes a term's text, translation or case sensitivity. */
export async function updateTerm(
  deps: Deps,
  ctx: Ctx,
  input: { termId: string; changes: GlossaryTermChanges },
): Promise<GlossaryTermRecord> {
  const { termId, changes } = input;
  const { state } = await readState(deps.store, glossaryDecider, glossaryTermStream(ctx.siteId, termId));
  if (!state.term) throw new GlossaryTermNotFound({ termId });
  if (changes.term !== undefined) await checkFree(deps, ctx.siteId, { ...state.term, term: changes.term }, termId);
  const data = { termId, changes, now: ctx.now.toISOString(), by: ctx.actor.id };
  const r = await send(deps, ctx, termId, { type: 'UpdateGlossaryTerm', data });
  return termRecordOf(r.state.term!);
}

/** Removes a term. */
export async function deleteTerm(deps: Deps, ctx: Ctx, input: { termId: string }): Promise<void> {
  const data = { termId: input.termId, now: ctx.now.toISOString(), by: ctx.actor.id };
  await send(deps, ctx, input.termId, { type: 'DeleteGlossaryTerm', data });
}
