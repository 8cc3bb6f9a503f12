import type { DomainEvent } from '../../kernel/es/event.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';

/** First-run setup was claimed: it holds everything needed to finish it after a crash. */
export type SetupStarted = DomainEvent<
  'SetupStarted',
  {
    siteId: string;
    siteName: string;
    adminUserId: string;
    email: Sealed;
    emailHash: string;
    passwordHash: Sealed;
    adminPath: string;
    at: string;
  }
>;
/** Setup finished: the admin user and the first site exist; the setup endpoints close. */
export type SetupCompleted = DomainEvent<'SetupCompleted', { at: string }>;

export type SetupEvent = SetupStarted | SetupCompleted;
export const SETUP_STREAM = '_system/instance/setup';
