/** The public surface of the flow-run subjects read model: which runs an erasure reaches. */
export { flowRunSubjectsProjector } from './flow-run-subjects.projector.ts';
export { runsConcerning, subjectsOfRun } from './flow-run-subjects.queries.ts';
