import { actorRef } from '../../kernel/auth/actor.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';

const ANONYMOUS = actorRef(null);

/** `ctx` with `userId` acting: a change a user makes to their own identity (a login, a session, a link spent). */
export function asUser(ctx: CommandContext, userId: string): CommandContext {
  const actor = { type: 'user' as const, id: userId };
  return { ...ctx, actor, metadata: { ...ctx.metadata, actor } };
}

/** As `asUser` when nobody signed in sends the command; a signed-in caller stays the actor. */
export function asUserIfAnonymous(ctx: CommandContext, userId: string): CommandContext {
  return ctx.actor.type === ANONYMOUS.type && ctx.actor.id === ANONYMOUS.id ? asUser(ctx, userId) : ctx;
}
