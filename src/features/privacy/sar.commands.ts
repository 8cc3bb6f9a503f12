import { createHash } from 'node:crypto';
import { pipeline, Transform } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import type { PersonalDataSubject } from '../../kernel/privacy/personal-data.ts';
import { own } from '../../kernel/safe/keys.ts';
import { findUserByEmail, findUserById } from '../../../projections/users/index.ts';
import { emailClaimStream, type EmailClaimed } from '../auth/user.events.ts';
import { exportType, exportStream, type ExportFormat } from './export.ts';
import { sarStream, type SubjectAccessExported } from './privacy.events.ts';
import { SubjectAccessNotFound, SubjectNotFound } from './privacy.errors.ts';
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

/** The member of `siteId` a request names, as the subject of that site's request; not a member → 404. */
export async function siteSubject(
  deps: Pick<AppDeps, 'db' | 'store' | 'addresses'>,
  siteId: string,
  ref: SubjectRef,
): Promise<PersonalDataSubject> {
  const path = 'email' in ref ? ['email'] : ['userId'];
  const userId = 'email' in ref ? await accountOf(deps, ref.email) : ref.userId;
  const user = userId === null ? null : await findUserById(deps.db, userId);
  if (!user || own(user.roles, siteId) === undefined) throw new SubjectNotFound({ path });
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

/** A subject-access export of the site, as recorded; another site's id (or none) → 404. */
export async function findSubjectAccess(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  id: string,
): Promise<SubjectAccessExported['data']> {
  let found: SubjectAccessExported['data'] | null = null;
  for await (const e of deps.store.readStream<SubjectAccessExported>(sarStream(siteId, id)))
    if (e.type === 'SubjectAccessExported') found = e.data;
  if (!found) throw new SubjectAccessNotFound({ id });
  return found;
}
