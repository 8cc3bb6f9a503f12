import type { AppDeps } from '../../deps.ts';
import { savedUrlProblem } from '../../platform/net/saved-url.ts';
import { FlowInvalid } from './flow.errors.ts';
import type { FlowDefinition } from '../../contracts/flows/flow.events.ts';

/** Scheme and host of a URL: a template there leaves the target unknown until the run renders it. */
const ORIGIN = /^[^:/?#]*:\/\/[^/?#]*/;
/** How long one flow's save waits for the lookups of its request targets' names, all together. */
const SAVE_LOOKUP_MS = 5_000;

/**
 * The request operations' targets, checked when the flow is saved by the outbound helper's address rules (unless
 * SVC_FLOW_ALLOW_PRIVATE): a target whose scheme or host holds a template is checked when the run sends it, as
 * every target is again then (a name can be re-pointed after the save).
 */
export async function checkRequestTargets(
  deps: Pick<AppDeps, 'config'>,
  graph: FlowDefinition['graph'] | undefined,
): Promise<void> {
  // One save waits at most SAVE_LOOKUP_MS for all its names, each looked up once; what is left is checked at send.
  const deadline = AbortSignal.timeout(SAVE_LOOKUP_MS);
  const seen = new Set<string>();
  for (const [i, node] of (graph?.nodes ?? []).entries()) {
    const url = node.operation === 'request' ? (node.options as { url?: unknown } | null)?.url : undefined;
    if (typeof url !== 'string' || (ORIGIN.exec(url)?.[0] ?? url).includes('{{')) continue;
    const origin = ORIGIN.exec(url)?.[0] ?? url;
    if (seen.has(origin)) continue;
    seen.add(origin);
    const problem = await savedUrlProblem(url, { allowPrivate: deps.config.SVC_FLOW_ALLOW_PRIVATE, deadline });
    if (problem)
      throw new FlowInvalid({
        message: `the request's url: ${problem.message}`,
        path: ['graph', 'nodes', String(i), 'options', 'url'],
        reason: problem.reason,
        nodeId: node.id,
      });
  }
}
