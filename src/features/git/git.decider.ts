import type { Decider } from '../../kernel/es/decider.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';
import { GitIntegrationNotFound } from './git.errors.ts';
import type {
  GitDeliveryReceived,
  GitIntegrationDefinition,
  GitIntegrationEvent,
  GitProvider,
  SyncConfig,
} from '../../contracts/git/git.events.ts';

/** A live integration as its stream holds it (null: none, or deleted). */
export type GitIntegrationState =
  | (GitIntegrationDefinition & {
      integrationId: string;
      token: Sealed | null;
      webhookSecret: Sealed;
      /** The GitHub App's private key, sealed (with `app`). */
      appKey?: Sealed | null;
      /** Set for an OAuth token that expires (GitLab's): how it is renewed, and when. */
      refreshToken?: Sealed | null;
      tokenExpiresAt?: string | null;
      /** Who connected it: the person behind what its processing does on their behalf (preview refreshes). */
      createdBy: string;
      createdAt: string;
      updatedAt: string;
    })
  | null;

type Changes = Extract<GitIntegrationEvent, { type: 'GitIntegrationUpdated' }>['data']['changes'];

export type GitIntegrationCommand =
  | {
      type: 'CreateIntegration';
      data: Extract<GitIntegrationEvent, { type: 'GitIntegrationCreated' }>['data'];
    }
  | {
      type: 'UpdateIntegration';
      /** `syncConfig`: the keys to change, merged into the settings the decision sees (never a stale read's). */
      data: {
        integrationId: string;
        changes: Omit<Changes, 'syncConfig'>;
        syncConfig?: Partial<SyncConfig>;
        at: string;
        by: string;
      };
    }
  | { type: 'DeleteIntegration'; data: { integrationId: string; at: string; by: string } };

/** One stream per integration: made once, changed while it lives, deleted once. */
export const gitIntegrationDecider: Decider<GitIntegrationState, GitIntegrationCommand, GitIntegrationEvent> = {
  initialState: () => null,
  evolve: (s, e) => {
    switch (e.type) {
      case 'GitIntegrationCreated': {
        const { at, by, ...rest } = e.data;
        return { ...rest, createdBy: by, createdAt: at, updatedAt: at };
      }
      case 'GitIntegrationUpdated':
        return s && { ...s, ...e.data.changes, updatedAt: e.data.at };
      case 'GitIntegrationDeleted':
        return null;
    }
  },
  decide: (c, s) => {
    switch (c.type) {
      case 'CreateIntegration':
        // The id is new: a second create of it (a retried request) changes nothing.
        return s ? [] : [{ type: 'GitIntegrationCreated', data: c.data }];
      case 'UpdateIntegration': {
        if (!s) throw new GitIntegrationNotFound({ integrationId: c.data.integrationId });
        const { syncConfig, ...data } = c.data;
        const changes: Changes = { ...data.changes };
        if (syncConfig) changes.syncConfig = { ...s.syncConfig, ...syncConfig };
        // Credentials were given for one host: pointed at another, they are dropped unless new ones come with the
        // change (decided here, on the stream's state, so a credential stored meanwhile is dropped too). No admin
        // can send a stored token, or the JWT an app's key signs, to an address of their choosing.
        if (changes.baseUrl !== undefined && changes.baseUrl !== s.baseUrl) {
          if (changes.token === undefined && s.token !== null) {
            changes.token = null;
            changes.refreshToken = null;
            changes.tokenExpiresAt = null;
          } else if (changes.token !== undefined && changes.refreshToken === undefined && s.refreshToken) {
            // A new token for the new host: the old host's renewal does not come with it.
            changes.refreshToken = null;
            if (changes.tokenExpiresAt === undefined) changes.tokenExpiresAt = null;
          }
          if (changes.appKey === undefined && s.appKey) {
            changes.app = null;
            changes.appKey = null;
          }
        }
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'GitIntegrationUpdated', data: { ...data, changes } }];
      }
      case 'DeleteIntegration':
        if (!s) throw new GitIntegrationNotFound({ integrationId: c.data.integrationId });
        return [{ type: 'GitIntegrationDeleted', data: c.data }];
    }
  },
};

export type GitDeliveryCommand = {
  type: 'RecordDelivery';
  data: GitDeliveryReceived['data'] & { provider: GitProvider };
};

/** One stream per delivery: the first arrival is recorded, a redelivery records nothing. */
export const gitDeliveryDecider: Decider<boolean, GitDeliveryCommand, GitDeliveryReceived> = {
  initialState: () => false,
  evolve: () => true,
  decide: (c, received) => (received ? [] : [{ type: 'GitDeliveryReceived', data: c.data }]),
};
