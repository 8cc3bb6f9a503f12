/**
 * The public surface of the git integrations read model: each site's integrations, deliveries, pull requests, CI
 * runs, content intents, provenance and previews, one projector per table.
 */
export { gitIntegrationsProjector } from './git-integrations.projector.ts';
export { gitDeliveriesProjector } from './git-deliveries.projector.ts';
export { gitPullRequestsProjector } from './git-pull-requests.projector.ts';
export { gitCiRunsProjector } from './git-ci-runs.projector.ts';
export { gitContentIntentsProjector } from './git-content-intents.projector.ts';
export { gitProvenanceProjector } from './git-provenance.projector.ts';
export { gitPreviewsProjector } from './git-previews.projector.ts';
export {
  duePreviews,
  listCiRuns,
  listPreviews,
  livePreviewsOf,
  listDeliveries,
  listIntegrations,
  listIntents,
  listProvenance,
  listPullRequests,
  type GitCiRunRow,
  type GitDeliveryRow,
  type GitIntegrationRow,
  type GitIntentRow,
  type GitPreviewRow,
  type GitProvenanceRow,
  type GitPullRequestRow,
} from './git-integrations.queries.ts';
