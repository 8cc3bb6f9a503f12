/** The public surface of the git integrations read model: each site's integrations, deliveries, pull requests and CI runs. */
export { gitIntegrationsProjector } from './git-integrations.projector.ts';
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
