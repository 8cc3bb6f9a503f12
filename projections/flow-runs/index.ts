/** The public surface of the flow runs read model: each flow's run history, and the worker's due list. */
export { flowRunsProjector } from './flow-runs.projector.ts';
export {
  countLiveRuns,
  dueFlowRuns,
  findFlowRun,
  listFlowRuns,
  nextFlowWorkAt,
  pruneFinishedRuns,
  type FlowRunRecord,
} from './flow-runs.queries.ts';
export type { RunStepRow } from './flow-runs.table.ts';
