import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { ScimServiceProviderConfig } from './auth.schemas.ts';

/** RFC 7644 §5: what this SCIM service provider supports (user and group provisioning arrive later). */
export const scimRoutes: FastifyPluginAsync<AppDeps> = async (plain) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/scim/v2/ServiceProviderConfig',
    {
      config: { caller: 'scim' },
      schema: {
        tags: ['scim'],
        summary: 'SCIM service provider configuration',
        response: {
          200: {
            description: 'The service provider configuration (RFC 7644 §5)',
            content: { 'application/scim+json': { schema: ScimServiceProviderConfig } },
          },
        },
      },
    },
    async (_req, reply) => {
      void reply.type('application/scim+json');
      return {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
        patch: { supported: false },
        bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
        filter: { supported: false, maxResults: 0 },
        changePassword: { supported: false },
        sort: { supported: false },
        etag: { supported: false },
        authenticationSchemes: [
          { type: 'oauthbearertoken', name: 'Bearer token', description: 'The SCIM_TOKEN of this deployment' },
        ],
      };
    },
  );
};
