/**
 * The public surface of the item-revisions read model: what slices and other read models may use.
 */
export { deltaOf, itemRevisionsProjector } from './item-revisions.projector.ts';
export {
  agentRevisionsOfCreator,
  countAgentRevisionsOfCreator,
  findRevision,
  listRevisions,
  revisionAt,
  revisionsByActor,
  type Revision,
  type RevisionCursor,
} from './item-revisions.queries.ts';
