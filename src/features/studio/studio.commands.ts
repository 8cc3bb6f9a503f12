import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { instanceState } from '../../../projections/instance/index.ts';
import { studioDecider } from './studio.decider.ts';
import { ADMIN_PATH_STREAM } from '../../contracts/studio/studio.events.ts';

/**
 * Moves the studio to another path (`AdminPathChanged`, recorded with the caller as its actor: the instance's audit
 * trail); the path setup chose holds until the first change. Answers the path in force afterwards.
 */
export async function changeAdminPath(
  deps: Pick<AppDeps, 'db' | 'store'>,
  ctx: Pick<CommandContext, 'now' | 'metadata'>,
  input: { to: string },
): Promise<{ adminPath: string; changed: boolean }> {
  const instance = await instanceState(deps.db);
  const setupPath = instance.setupComplete ? instance.adminPath : null;
  const command = { type: 'ChangeAdminPath' as const, data: { setupPath, to: input.to, now: ctx.now.toISOString() } };
  const result = await handleCommand(deps.store, studioDecider, ADMIN_PATH_STREAM, command, {
    metadata: ctx.metadata,
  });
  return { adminPath: result.state.path ?? input.to, changed: result.events.length > 0 };
}
