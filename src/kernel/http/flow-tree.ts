import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';

/**
 * The header a flow's `request` step sends with every call: the run tree the call continues (site, root run,
 * requesting run and node, depth), MAC'd by the service. A call that comes back to the service with it (a webhook
 * trigger, an item write with an API key) is work of that tree and spends the root's budget, instead of starting a
 * tree of its own; only the service can make one, so a caller cannot join or leave a tree at will.
 */
export const FLOW_TREE_HEADER = 'x-svc-flow-tree';

/** How long a header is taken after it was made: far longer than a step's call (60 s), short enough to bound a replay. */
export const FLOW_TREE_TTL_MS = 10 * 60_000;

/** Longer values are not even decoded. */
const MAX_LENGTH = 2048;
const VERSION = 'v1';

/** A verified tree header: the run tree a request continues. */
export interface FlowTree {
  siteId: string;
  rootRunId: string;
  /** The run whose step made the call, and that step's node. */
  runId: string;
  nodeId: string;
  /** The requesting run's depth: work the call starts is one level deeper. */
  depth: number;
  /** Epoch milliseconds after which the header is not taken. */
  expiresAt: number;
}

/** The MAC of a header's payload, under a key derived from the service's secret for this purpose alone. */
export interface FlowTreeMac {
  sign(payload: string): string;
  verify(payload: string, signature: string): boolean;
}

const Id = z.string().min(1).max(1000);
const Claims = z.strictObject({
  site: z.string().min(1).max(100),
  root: Id,
  run: Id,
  node: Id,
  depth: z.number().int().min(0).max(100),
  exp: z.number().int().min(0),
});

/** `v1.<base64url JSON claims>.<base64url HMAC-SHA256 of "v1.<claims>">`. */
export function encodeFlowTree(tree: FlowTree, sign: FlowTreeMac['sign']): string {
  const claims = {
    ...{ site: tree.siteId, root: tree.rootRunId, run: tree.runId, node: tree.nodeId },
    ...{ depth: tree.depth, exp: tree.expiresAt },
  };
  const payload = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${payload}.${sign(payload)}`;
}

/** The tree of a genuine, unexpired header, or null for anything else (absent, malformed, tampered, expired). */
export function decodeFlowTree(value: unknown, mac: FlowTreeMac, now: Date): FlowTree | null {
  if (typeof value !== 'string' || value.length > MAX_LENGTH) return null;
  const parts = value.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return null;
  // The MAC first: nothing of an unauthenticated payload is parsed.
  if (!mac.verify(`${VERSION}.${parts[1]}`, parts[2]!)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const c = Claims.safeParse(json);
  if (!c.success || c.data.exp <= now.getTime()) return null;
  const d = c.data;
  return { siteId: d.site, rootRunId: d.root, runId: d.run, nodeId: d.node, depth: d.depth, expiresAt: d.exp };
}

/** The verified tree of each request that carried one for its own site (a request-scoped fact, not a decoration). */
const trees = new WeakMap<FastifyRequest, FlowTree>();

/**
 * Reads the header of every site-scoped request once access has settled the site: a genuine header of this site is
 * remembered for the request (its writes and the webhook trigger use it); any other value is ignored, as if absent,
 * so a forged, tampered, expired or foreign header attaches to no tree and takes no budget from one.
 */
export function installFlowTree(app: FastifyInstance, opts: { mac: FlowTreeMac; now: () => Date }): void {
  app.addHook('onRequest', async (req) => {
    const value = req.headers[FLOW_TREE_HEADER];
    if (value === undefined || !req.site) return;
    const tree = decodeFlowTree(value, opts.mac, opts.now());
    if (tree && tree.siteId === req.site.id) trees.set(req, tree);
  });
}

/** The run tree a request continues (a genuine header of the request's site), or null. */
export const flowTreeOf = (req: FastifyRequest): FlowTree | null => trees.get(req) ?? null;

/** The correlation every event of a run tree carries: its root. */
export const treeCorrelation = (rootRunId: string) => `flow-run:${rootRunId}`;

/**
 * The causation of what a request of a tree writes: the step that made the call. Only the service sets a causation
 * (a request never chooses one), so an event that carries this form was written by a call with a genuine header.
 */
export const flowCallCause = (runId: string, nodeId: string) => `flow-call:${runId}/${nodeId}`;
