import type { ActorRef } from '../es/event.ts';

/** The authenticated principal of a request (request.actor). */
export interface Actor {
  type: 'user';
  id: string;
  email: string;
  /** Admin of every site (the setup user). */
  instanceAdmin: boolean;
  /** Role key per site id. */
  roles: Record<string, string>;
  tokenVersion: number;
}

/** Role of the actor on a site: instance admins are admin everywhere. */
export function roleOn(actor: Actor, siteId: string): string | null {
  if (actor.instanceAdmin) return 'admin';
  return actor.roles[siteId] ?? null;
}

export function actorRef(actor: Actor | null): ActorRef {
  return actor ? { type: 'user', id: actor.id } : { type: 'system', id: 'anonymous' };
}
