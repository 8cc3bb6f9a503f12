import type { AppDeps } from '../../deps.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import { defineReactor, reactionMetadata, type Reactor } from '../../kernel/es/reactor.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findFlow } from '../../../projections/flows/index.ts';
import { findRelease } from '../../../projections/releases/index.ts';
import {
  flowRunStream,
  type FlowRunFailed,
  type FlowRunStarted,
  type FlowRunSucceeded,
} from '../../contracts/flows/flow-run.events.ts';
import type { ReleasePublished, ReleasePublishRefused } from '../../contracts/releases/release.events.ts';
import { notify, type NotifyInput } from './notifications.commands.ts';

export const NOTIFICATION_PRODUCER = 'notification-producer';

type Produced = FlowRunSucceeded | FlowRunFailed | ReleasePublished | ReleasePublishRefused;

/** What a producer knows of the event's subject: names for the title, and who started a run. */
export interface Subject {
  /** The flow's or the release's name, when the read model has it. */
  name: string | null;
  flowId: string | null;
  /** The person who started a run by hand (or retried it), who is told it succeeded. */
  startedBy: string | null;
}

type Draft = Omit<NotifyInput, 'siteId' | 'metadata'>;

const quoted = (name: string | null, fallback: string) => (name ? `“${name}”` : fallback);

/**
 * The notifications an event raises (pure): a failed flow run (warning) to the site's admins; a run a person
 * started by hand that succeeded (info) to that person, since runs started by schedules, webhooks and events would
 * fill every inbox; a release publish to the site's admins, info when everything went out and warning otherwise;
 * a refused publish (warning). Ids follow from the event, so a redelivery raises nothing new.
 */
export function notificationsOf(e: StoredEventOf<Produced>, s: Subject): Draft[] {
  switch (e.type) {
    case 'FlowRunFailed': {
      const flow = quoted(s.name, 'A flow');
      return [
        {
          notificationId: `run-${e.data.runId}`,
          kind: 'run',
          severity: 'warning',
          title: `${flow} failed`,
          body: `${e.data.error.code}: ${e.data.error.message}${e.data.nodeId ? ` (step ${e.data.nodeId})` : ''}`,
          deepLink: s.flowId ? `/flows/${s.flowId}/runs/${e.data.runId}` : null,
          entityId: e.data.runId,
          recipient: { type: 'admins' },
        },
      ];
    }
    case 'FlowRunSucceeded':
      if (!s.startedBy) return [];
      return [
        {
          notificationId: `run-${e.data.runId}`,
          kind: 'run',
          severity: 'info',
          title: `${quoted(s.name, 'A flow')} succeeded`,
          body: 'The run you started finished.',
          deepLink: s.flowId ? `/flows/${s.flowId}/runs/${e.data.runId}` : null,
          entityId: e.data.runId,
          recipient: { type: 'user', id: s.startedBy },
        },
      ];
    case 'ReleasePublished': {
      const failed = e.data.outcomes.filter((o) => o.outcome === 'failed').length;
      const published = e.data.outcomes.filter((o) => o.outcome === 'published').length;
      const release = quoted(s.name, 'A release');
      return [
        {
          notificationId: `release-${e.data.releaseId}-${e.streamVersion}`,
          kind: 'run',
          severity: e.data.status === 'published' ? 'info' : 'warning',
          title:
            e.data.status === 'published'
              ? `${release} was published`
              : `${release} ${e.data.status === 'failed' ? 'failed to publish' : 'was partly published'}`,
          body: `${published} published, ${failed} failed, ${e.data.outcomes.length - published - failed} skipped.`,
          deepLink: `/releases/${e.data.releaseId}`,
          entityId: e.data.releaseId,
          recipient: { type: 'admins' },
        },
      ];
    }
    case 'ReleasePublishRefused':
      return [
        {
          notificationId: `release-${e.data.releaseId}-${e.streamVersion}`,
          kind: 'run',
          severity: 'warning',
          title: `${quoted(s.name, 'A release')} was not published`,
          body: `The scheduled publish was refused: ${e.data.code}.`,
          deepLink: `/releases/${e.data.releaseId}`,
          entityId: e.data.releaseId,
          recipient: { type: 'admins' },
        },
      ];
  }
}

/** The run's first event: which flow, and who started it. */
async function runStart(deps: AppDeps, siteId: string, runId: string): Promise<StoredEvent<FlowRunStarted> | null> {
  for await (const ev of deps.store.readStream<FlowRunStarted>(flowRunStream(siteId, runId), { toVersion: 1 }))
    if (ev.type === 'FlowRunStarted') return ev;
  return null;
}

const PERSON_STARTED = new Set(['manual', 'retry']);

/**
 * The producer of the notifications of flow runs and release publishes: a reactor, so a notification never slows or
 * fails the write that caused it, and it is raised at least once, under its own actor, caused by that event.
 */
export function notificationProducer(deps: AppDeps): Reactor {
  return defineReactor<Produced, Subject, Draft>({
    name: NOTIFICATION_PRODUCER,
    handles: ['FlowRunSucceeded', 'FlowRunFailed', 'ReleasePublished', 'ReleasePublishRefused'],
    load: async (e) => {
      const site = e.siteId;
      if (e.type === 'FlowRunSucceeded' || e.type === 'FlowRunFailed') {
        const start = await runStart(deps, site, e.data.runId);
        const flowId = start?.data.flowId ?? null;
        const flow = flowId ? await readAsSite(deps.db, site, (db) => findFlow(db, site, flowId)) : null;
        const by = start?.data.startedBy;
        const startedBy = start && PERSON_STARTED.has(start.data.trigger) && by?.type === 'user' ? by.id : null;
        return { name: flow?.name ?? null, flowId, startedBy };
      }
      const release = await findRelease(deps.db, site, e.data.releaseId);
      return { name: release?.name ?? null, flowId: null, startedBy: null };
    },
    react: notificationsOf,
    send: (draft, e) =>
      notify(deps, {
        ...draft,
        siteId: e.siteId,
        metadata: reactionMetadata(e, { type: 'system', id: NOTIFICATION_PRODUCER }, deps.clock.now()),
      }),
  });
}
