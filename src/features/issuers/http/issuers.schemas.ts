import { z } from 'zod';

/** The role an external role maps to: exactly one of a role id and a system role key. */
const RoleTarget = z.object({ roleId: z.string().optional(), systemKey: z.string().optional() });

/** A trusted external issuer of a site: the registered record with its id, times and version. */
export const TrustedIssuerRecord = z
  .object({
    id: z.string(),
    issuer: z.string(),
    jwksUri: z.string().nullable(),
    discoveryUrl: z.string().nullable(),
    audience: z.union([z.string(), z.array(z.string())]),
    algorithms: z.array(z.string()),
    claimMapping: z.object({
      email: z.string(),
      roles: z.string(),
      siteId: z.string().optional(),
      externalId: z.string(),
    }),
    /** External role → the role it grants. */
    roleMapping: z.record(z.string(), RoleTarget),
    defaultRoleId: z.string().nullable(),
    jitProvisioning: z.boolean(),
    clockSkewSeconds: z.number().int(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
    version: z.number().int(),
  })
  .meta({ id: 'TrustedIssuer' });

export const IssuerListMeta = z.object({ total: z.number().int() });
