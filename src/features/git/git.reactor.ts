import type { AppDeps } from '../../deps.ts';
import type { ActorRef } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { defineReactor, reactionMetadata, type Reactor } from '../../kernel/es/reactor.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import { notify } from '../notifications/index.ts';
import {
  ciRunDecider,
  pullRequestDecider,
  type ObserveCiRun,
  type ObservePullRequest,
} from './git.activity.decider.ts';
import { deliveryPayload, findIntegration } from './git.commands.ts';
import type { GitIntegrationState } from './git.decider.ts';
import {
  gitCiStream,
  gitPullRequestStream,
  type GitCiFailed,
  type GitDeliveryReceived,
} from '../../contracts/git/git.events.ts';
import { observe, type Observation } from '../../contracts/git/git.observations.ts';

export const GIT_DELIVERY_PROCESSOR = 'git-delivery-processor';
export const GIT_INCIDENT_REPORTER = 'git-incident-reporter';
const PROCESSOR: ActorRef = { type: 'system', id: GIT_DELIVERY_PROCESSOR };

/** What processing a delivery knows: the integration now (null once deleted) and the delivery's payload in clear. */
export interface DeliveryContext {
  integration: GitIntegrationState;
  payload: unknown;
}

export type ActivityCommand = ObservePullRequest | ObserveCiRun;

/**
 * The commands a delivery makes (pure): each pull request and CI run it shows is observed on its own stream. A
 * delivery of a deleted integration (its payload no longer readable) makes none.
 */
export function activityOf(e: StoredEventOf<GitDeliveryReceived>, ctx: DeliveryContext): ActivityCommand[] {
  const integration = ctx.integration;
  if (!integration || ctx.payload === null) return [];
  const base = { integrationId: e.data.integrationId, deliveryKey: e.data.key, at: e.data.at };
  return observe(e.data.provider, ctx.payload, e.data.at).flatMap((o: Observation): ActivityCommand[] => {
    switch (o.kind) {
      case 'pull_request': {
        const { kind: _k, ...seen } = o;
        return [{ type: 'ObservePullRequest', data: { ...seen, ...base } }];
      }
      case 'ci': {
        const { kind: _k, ...seen } = o;
        return [{ type: 'ObserveCiRun', data: { ...seen, ...base }, branch: integration.syncConfig.branch }];
      }
      case 'push':
        return [];
    }
  });
}

/**
 * Processes recorded deliveries off the request: pull requests and CI runs become events of their own streams
 * (what `/pull-requests` and `/ci` read). The processor records what the provider said under its own system actor;
 * it changes no content, so it needs no one's rights.
 */
export function gitDeliveryProcessor(deps: AppDeps): Reactor {
  return defineReactor<GitDeliveryReceived, DeliveryContext, ActivityCommand>({
    name: GIT_DELIVERY_PROCESSOR,
    handles: ['GitDeliveryReceived'],
    load: async (e) => {
      const state = await findIntegration(deps, e.siteId, e.data.integrationId);
      return { integration: state, payload: state ? await deliveryPayload(deps, e.data) : null };
    },
    react: activityOf,
    send: async (command, e) => {
      const metadata = reactionMetadata(e, PROCESSOR, deps.clock.now());
      const { integrationId } = command.data;
      if (command.type === 'ObservePullRequest')
        await handleCommand(
          deps.store,
          pullRequestDecider,
          gitPullRequestStream(e.siteId, integrationId, command.data.number),
          command,
          { metadata },
        );
      else
        await handleCommand(
          deps.store,
          ciRunDecider,
          gitCiStream(e.siteId, integrationId, command.data.source, command.data.runId),
          command,
          { metadata },
        );
    },
  });
}

/** The incident a failed run raises (pure): to the site's admins, its id the event's (raised once). */
export function incidentOf(e: StoredEventOf<GitCiFailed>, repository: string | null) {
  const d = e.data;
  const where = d.ref ? `on ${d.ref}` : `at ${d.sha.slice(0, 12)}`;
  return {
    notificationId: `git-ci-failed-${e.eventId}`,
    recipient: { type: 'admins' } as const,
    kind: 'incident' as const,
    severity: d.severity,
    title: `CI failed: ${d.name}`,
    body: `${repository ?? 'A connected repository'}: ${d.name} failed ${where} (${d.sha.slice(0, 12)}).`,
    deepLink: `/settings/integrations/git/${d.integrationId}/ci`,
    entityId: d.integrationId,
  };
}

/** Answers `git_ci_failed` with the incident notification the notification slice delivers. */
export function gitIncidentReporter(deps: AppDeps): Reactor {
  return defineReactor<GitCiFailed, string | null, ReturnType<typeof incidentOf>>({
    name: GIT_INCIDENT_REPORTER,
    handles: ['git_ci_failed'],
    load: async (e) => {
      const state = await findIntegration(deps, e.siteId, e.data.integrationId);
      return state?.repository ?? null;
    },
    react: (e, repository) => [incidentOf(e, repository)],
    send: (draft, e) =>
      notify(deps, {
        ...draft,
        siteId: e.siteId,
        metadata: reactionMetadata(e, { type: 'system', id: GIT_INCIDENT_REPORTER }, deps.clock.now()),
      }),
  });
}
