/** The public surface of the git integrations read model: each site's integrations, deliveries, pull requests and CI runs. */
export { gitIntegrationsProjector } from './git-integrations.projector.ts';
export {
  listCiRuns,
  listDeliveries,
  listIntegrations,
  listPullRequests,
  type GitCiRunRow,
  type GitDeliveryRow,
  type GitIntegrationRow,
  type GitPullRequestRow,
} from './git-integrations.queries.ts';
