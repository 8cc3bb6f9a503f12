import { createHash } from 'node:crypto';
import { pipeline, Transform } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import { siteOf, type Principal } from '../../kernel/http/access.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import type { PersonalDataSubject } from '../../platform/privacy/personal-data.ts';
import { own } from '../../kernel/safe/keys.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { exportsMadeBefore, exportsOfSubject, type KeptExport } from '../../../projections/sar-exports/index.ts';
import { findUserByEmail, findUserById } from '../../../projections/users/index.ts';
import { emailClaimStream, type EmailClaimed } from '../../contracts/auth/user.events.ts';
import { exportType, exportStream, type ExportFormat } from './export.ts';
import { sarStream, type SubjectAccessExported } from '../../contracts/privacy/privacy.events.ts';
import { SubjectAccessDeleted, SubjectAccessNotFound, SubjectNotFound } from './privacy.errors.ts';
import { sarDecider } from './sar.decider.ts';

/** Who a subject-access request names: an account id, or an address. */
export type SubjectRef = { userId: string } | { email: string };

/**
 * The account an address belongs to: its claim (the log's own record, named by the address's keyed hash), or, for
 * accounts made before claims existed, the users read model as login looks it up.
 */
async function accountOf(deps: Pick<AppDeps, 'db' | 'store' | 'addresses'>, email: string): Promise<string | null> {
  let claimant: string | null = null;
  for await (const e of deps.store.readStream<EmailClaimed>(emailClaimStream(deps.addresses.hash(email))))
    claimant = e.data.userId;
  return claimant ?? (await findUserByEmail(deps.db, email))?.userId ?? null;
}

/**
 * The member of the caller's site a request names, as the subject of that site's request; not a member → 404. An
 * instance administrator is no one's member to export but another instance administrator's (the authorizer's
 * answer): the member routes hide them from site admins, and the same 404 says nothing more here.
 */
export async function siteSubject(
  deps: Pick<AppDeps, 'db' | 'store' | 'addresses' | 'authorizer'>,
  caller: Principal,
  ref: SubjectRef,
): Promise<PersonalDataSubject> {
  const siteId = siteOf(caller);
  const path = 'email' in ref ? ['email'] : ['userId'];
  const userId = 'email' in ref ? await accountOf(deps, ref.email) : ref.userId;
  const user = userId === null ? null : await findUserById(deps.db, userId);
  if (!user || own(user.roles, siteId) === undefined) throw new SubjectNotFound({ path });
  if (user.instanceAdmin && !deps.authorizer.isInstanceAdministrator(caller)) throw new SubjectNotFound({ path });
  return { userId: user.userId, siteIds: [siteId], everySite: false };
}

/** What a stored subject-access export is (the answer of POST /admin/sar). */
export interface SubjectAccessRecord {
  id: string;
  subjectId: string;
  format: ExportFormat;
  createdAt: string;
  size: number;
  sha256: string;
}

/**
 * Exports a subject's personal data into the site's object storage (`sites/<site>/sar/<id>.<format>`), hashing and
 * counting the bytes on the way, then records the export (an audit event without personal data).
 */
export async function exportSubjectAccess(
  deps: AppDeps,
  ctx: CommandContext,
  input: { subject: PersonalDataSubject; format: ExportFormat },
): Promise<SubjectAccessRecord> {
  const id = newId();
  const objectKey = `sites/${ctx.siteId}/sar/${id}.${input.format}`;
  const run = exportStream(deps.personalData(), input.subject, input.format, ctx.now);
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  // A failed part destroys the body; the pipeline passes that on to the storage write, which then keeps nothing.
  const body = pipeline(run.body, meter, () => undefined);
  try {
    await Promise.all([deps.storage.put(objectKey, body, { contentType: exportType(input.format) }), run.done]);
  } catch (err) {
    await deps.storage.delete(objectKey).catch(() => undefined);
    throw err;
  }
  const data = { sarId: id, subjectId: input.subject.userId, format: input.format, objectKey, size };
  const command = { ...data, sha256: hash.digest('hex'), by: ctx.actor.id, now: ctx.now.toISOString() };
  await handleCommand(
    deps.store,
    sarDecider,
    sarStream(ctx.siteId, id),
    { type: 'RecordSubjectAccess', data: command },
    { metadata: ctx.metadata, fresh: true },
  );
  return { id, subjectId: data.subjectId, format: data.format, createdAt: command.now, size, sha256: command.sha256 };
}

/**
 * A subject-access export of the site whose file is kept; another site's id (or none) → 404 `NOT_FOUND`, one whose
 * file was deleted (retention, erasure) → 404 `NOT_FOUND` with `extensions.reason` `expired` or `erased`.
 */
export async function findSubjectAccess(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  id: string,
): Promise<SubjectAccessExported['data']> {
  const { state } = await readState(deps.store, sarDecider, sarStream(siteId, id));
  if (!state.exported) throw new SubjectAccessNotFound({ id });
  if (state.deleted)
    throw new SubjectAccessDeleted({
      id,
      reason: state.deleted.reason === 'retention' ? 'expired' : 'erased',
      at: state.deleted.at,
    });
  return state.exported;
}

/** The context of a deletion the service makes on its own (retention, erasure), as the system. */
function systemMetadata(siteId: string, now: Date, why: string): EventMetadata {
  return {
    siteId,
    actor: { type: 'system', id: why },
    correlationId: `${why}:${siteId}:${now.toISOString()}`,
    causationId: null,
    requestId: null,
    occurredAt: now.toISOString(),
  };
}

/** Deletes an export's file, then records it (a crash between the two is finished by the next run). */
async function deleteExport(
  deps: Pick<AppDeps, 'store' | 'storage'>,
  siteId: string,
  kept: KeptExport,
  reason: 'retention' | 'erasure',
  metadata: EventMetadata,
): Promise<void> {
  await deps.storage.delete(kept.objectKey);
  await handleCommand(
    deps.store,
    sarDecider,
    sarStream(siteId, kept.sarId),
    { type: 'RecordExportDeleted', data: { sarId: kept.sarId, reason, now: metadata.occurredAt } },
    { metadata },
  );
}

const PRUNE_PAGE = 100;

/**
 * Retention of `sar_exports`: deletes the files of the site's exports made before `before` and records each
 * deletion; answers how many. An export is personal data: it is kept only as long as its horizon.
 */
export async function pruneSubjectAccessExports(
  deps: Pick<AppDeps, 'db' | 'store' | 'storage' | 'clock'>,
  siteId: string,
  before: Date,
): Promise<number> {
  const metadata = systemMetadata(siteId, deps.clock.now(), 'retention');
  let count = 0;
  for (;;) {
    const page = await readAsSite(deps.db, siteId, (db) => exportsMadeBefore(db, siteId, before, PRUNE_PAGE));
    for (const kept of page) await deleteExport(deps, siteId, kept, 'retention', metadata);
    count += page.length;
    if (page.length < PRUNE_PAGE) return count;
  }
}

/** Erasure: deletes the files of every export of the subject on these sites (each holds their data in clear). */
export async function deleteSubjectAccessExportsOf(
  deps: Pick<AppDeps, 'db' | 'store' | 'storage' | 'clock'>,
  subjectId: string,
  siteIds: readonly string[],
): Promise<number> {
  let count = 0;
  for (const siteId of siteIds) {
    const metadata = systemMetadata(siteId, deps.clock.now(), 'erasure');
    const kept = await readAsSite(deps.db, siteId, (db) => exportsOfSubject(db, siteId, subjectId));
    for (const k of kept) await deleteExport(deps, siteId, k, 'erasure', metadata);
    count += kept.length;
  }
  return count;
}
