/** The public surface of the git integrations read model: each site's integrations and their deliveries. */
export { gitIntegrationsProjector } from './git-integrations.projector.ts';
export {
  listDeliveries,
  listIntegrations,
  type GitDeliveryRow,
  type GitIntegrationRow,
} from './git-integrations.queries.ts';
