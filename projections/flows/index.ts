/** The public surface of the flows read model: a site's flows (never their webhook tokens) for lists and details. */
export { flowsProjector } from './flows.projector.ts';
export {
  activeEventFlows,
  dueScheduledFlows,
  findFlow,
  listFlows,
  type FlowListOptions,
  type FlowRecord,
} from './flows.queries.ts';
