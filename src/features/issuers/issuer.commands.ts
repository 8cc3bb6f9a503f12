import type { AppDeps } from '../../deps.ts';
import { handleCommands, streamCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { savedUrlProblem } from '../../platform/net/saved-url.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findIssuer } from '../../../projections/trusted-issuers/index.ts';
import { issuerClaimDecider } from './issuer-claim.decider.ts';
import { issuerDecider } from './issuer.decider.ts';
import { IssuerNotFound, UnsafeKeySource } from './issuer.errors.ts';
import { issuerClaimStream, issuerStream } from '../../contracts/issuers/issuer.events.ts';
import type { IssuerPatch, TrustedIssuerConfig } from '../../contracts/issuers/issuer.schema.ts';

type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata'>;
type Deps = Pick<AppDeps, 'db' | 'store' | 'config'>;
type Sources = { jwksUri?: string | null; discoveryUrl?: string | null };

const claim = (siteId: string, issuerId: string, iss: string, now: string) =>
  streamCommand({
    decider: issuerClaimDecider,
    streamId: issuerClaimStream(siteId, iss),
    command: { type: 'ClaimIssuer', data: { issuerId, iss, now } },
  });
const release = (siteId: string, issuerId: string, iss: string, now: string) =>
  streamCommand({
    decider: issuerClaimDecider,
    streamId: issuerClaimStream(siteId, iss),
    command: { type: 'ReleaseIssuer', data: { issuerId, now } },
  });

/** The issuer record of the site, or 404. */
export async function currentIssuer(deps: Pick<AppDeps, 'db'>, siteId: string, issuerId: string) {
  const found = await readAsSite(deps.db, siteId, (trx) => findIssuer(trx, siteId, issuerId));
  if (!found) throw new IssuerNotFound({ issuerId });
  return found;
}

/**
 * Where the service will fetch keys from must be https in production and, unless allowed, a public address: the
 * shared save-time check (a name that does not resolve now, or not in time, is checked again at every fetch).
 */
async function checkSources({ config }: Pick<AppDeps, 'config'>, body: Sources): Promise<void> {
  const deadline = AbortSignal.timeout(5_000);
  for (const key of ['jwksUri', 'discoveryUrl'] as const) {
    const url = body[key];
    if (!url) continue;
    const problem = await savedUrlProblem(url, {
      allowPrivate: config.SVC_ALLOW_PRIVATE_ISSUERS,
      httpsOnly: config.NODE_ENV === 'production',
      deadline,
    });
    if (problem) throw new UnsafeKeySource({ key, ...problem });
  }
}

/** Registers a trusted issuer and claims its `iss` value on the site, in one append; its new id. */
export async function registerIssuer(deps: Deps, ctx: Ctx, config: TrustedIssuerConfig): Promise<string> {
  await checkSources(deps, config);
  const { siteId } = ctx;
  const issuerId = newId();
  const now = ctx.now.toISOString();
  const register = streamCommand({
    decider: issuerDecider,
    streamId: issuerStream(siteId, issuerId),
    command: { type: 'RegisterIssuer', data: { issuerId, siteId, config, now } },
  });
  await handleCommands(deps.store, [register, claim(siteId, issuerId, config.issuer, now)], {
    metadata: ctx.metadata,
  });
  return issuerId;
}

/** Changes a trusted issuer; a new `iss` value is claimed and the old one released in the same append. */
export async function updateIssuer(deps: Deps, ctx: Ctx, input: { issuerId: string; patch: IssuerPatch }) {
  await checkSources(deps, input.patch);
  const { siteId } = ctx;
  const { issuerId, patch } = input;
  const before = await currentIssuer(deps, siteId, issuerId);
  const now = ctx.now.toISOString();
  const next = patch.issuer ?? before.issuer;
  const update = streamCommand({
    decider: issuerDecider,
    streamId: issuerStream(siteId, issuerId),
    command: { type: 'UpdateIssuer', data: { issuerId, siteId, patch, expectedIssuer: before.issuer, now } },
  });
  const moves =
    next === before.issuer ? [] : [release(siteId, issuerId, before.issuer, now), claim(siteId, issuerId, next, now)];
  await handleCommands(deps.store, [update, ...moves], { metadata: ctx.metadata });
}

/** Removes a trusted issuer and releases its `iss` value. */
export async function removeIssuer(deps: Pick<AppDeps, 'db' | 'store'>, ctx: Ctx, input: { issuerId: string }) {
  const { siteId } = ctx;
  const { issuerId } = input;
  const before = await currentIssuer(deps, siteId, issuerId);
  const now = ctx.now.toISOString();
  const remove = streamCommand({
    decider: issuerDecider,
    streamId: issuerStream(siteId, issuerId),
    command: { type: 'RemoveIssuer', data: { issuerId, siteId, expectedIssuer: before.issuer, now } },
  });
  await handleCommands(deps.store, [remove, release(siteId, issuerId, before.issuer, now)], {
    metadata: ctx.metadata,
  });
}
