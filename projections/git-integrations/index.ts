/**
 * The public surface of the git integrations read model: each site's integrations, deliveries, pull requests, CI
 * runs, content intents, provenance and previews, one projector per table.
 */
import { gitCiRunsProjector } from './git-ci-runs.projector.ts';
import { gitContentIntentsProjector } from './git-content-intents.projector.ts';
import { gitDeliveriesProjector } from './git-deliveries.projector.ts';
import { gitIntegrationsProjector } from './git-integrations.projector.ts';
import { gitPreviewsProjector } from './git-previews.projector.ts';
import { gitProvenanceProjector } from './git-provenance.projector.ts';
import { gitPullRequestsProjector } from './git-pull-requests.projector.ts';

/** The read model's projectors, one per table, in the order the git slice registers them. */
export const gitProjectors = [
  gitIntegrationsProjector,
  gitDeliveriesProjector,
  gitPullRequestsProjector,
  gitCiRunsProjector,
  gitContentIntentsProjector,
  gitProvenanceProjector,
  gitPreviewsProjector,
];
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
