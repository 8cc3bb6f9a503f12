/**
 * The public surface of the api-keys read model: what slices and other read models may use.
 */
export { apiKeysProjector } from './api-keys.projector.ts';
export {
  findApiKey,
  findApiKeyCredential,
  listApiKeys,
  publishableKeyOrigins,
  touchApiKey,
  type ApiKeyCredential,
  type PublishableKeyOrigins,
} from './api-keys.queries.ts';
