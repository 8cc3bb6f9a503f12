import type { AppDeps } from '../../deps.ts';
import { savedUrlProblem } from '../../kernel/net/saved-url.ts';
import { FlowInvalid } from './flow.errors.ts';
import type { FlowDefinition } from './flow.events.ts';

/** Scheme and host of a URL: a template there leaves the target unknown until the run renders it. */
const ORIGIN = /^[^:/?#]*:\/\/[^/?#]*/;

/**
 * The request operations' targets, checked when the flow is saved by the outbound helper's address rules (unless
 * SVC_FLOW_ALLOW_PRIVATE): a target whose scheme or host holds a template is checked when the run sends it, as
 * every target is again then (a name can be re-pointed after the save).
 */
export async function checkRequestTargets(
  deps: Pick<AppDeps, 'config'>,
  graph: FlowDefinition['graph'] | undefined,
): Promise<void> {
  for (const [i, node] of (graph?.nodes ?? []).entries()) {
    const url = node.operation === 'request' ? (node.options as { url?: unknown } | null)?.url : undefined;
    if (typeof url !== 'string' || (ORIGIN.exec(url)?.[0] ?? url).includes('{{')) continue;
    const problem = await savedUrlProblem(url, { allowPrivate: deps.config.SVC_FLOW_ALLOW_PRIVATE });
    if (problem)
      throw new FlowInvalid({
        message: `the request's url: ${problem.message}`,
        path: ['graph', 'nodes', String(i), 'options', 'url'],
        reason: problem.reason,
        nodeId: node.id,
      });
  }
}
