import type { DomainEvent } from '../../kernel/es/event.ts';

/** An instance administrator moved the studio: `from` answers the generic 404 from now on, `to` serves it. */
export type AdminPathChanged = DomainEvent<'AdminPathChanged', { from: string; to: string; at: string }>;

export type StudioEvent = AdminPathChanged;
export const STUDIO_EVENT_TYPES = ['AdminPathChanged'] as const satisfies readonly StudioEvent['type'][];

/** The instance's one stream of admin path changes (setup's stream holds the first path). */
export const ADMIN_PATH_STREAM = '_system/instance/admin-path';
