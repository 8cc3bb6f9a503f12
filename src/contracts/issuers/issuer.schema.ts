import { z } from 'zod';
import { unprocessable } from '../../kernel/http/unprocessable.ts';
import { SYSTEM_ROLES } from '../../kernel/auth/authorizer.ts';

/** Asymmetric JWS algorithms only: a shared secret (HS*) or `none` would let anyone holding it mint tokens. */
export const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;
/** Role keys an external role may map to, most privileged first (custom roles do not exist yet). */
export const ROLE_KEYS = SYSTEM_ROLES;
export type RoleKey = (typeof ROLE_KEYS)[number];

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }).max(2048);
const Role = z.enum(ROLE_KEYS);
const ClaimName = z.string().min(1).max(200);
const RoleTarget = z
  .object({ roleId: Role.optional(), systemKey: Role.optional() })
  .strict()
  .refine((t) => (t.roleId === undefined) !== (t.systemKey === undefined), {
    message: 'give exactly one of roleId and systemKey',
  });
const ClaimMapping = z
  .object({
    email: ClaimName.default('email'),
    roles: ClaimName.default('roles'),
    siteId: ClaimName.optional(),
    externalId: ClaimName.default('sub'),
  })
  .strict();

/** Every field of the record, without defaults (a PATCH must not reset what it does not name). */
const fields = {
  issuer: z.string().min(1).max(2048),
  jwksUri: HttpUrl.nullable(),
  discoveryUrl: HttpUrl.nullable(),
  audience: z.union([z.string().min(1).max(2048), z.array(z.string().min(1).max(2048)).min(1).max(20)]),
  algorithms: z.array(z.enum(ALGORITHMS)).min(1).max(ALGORITHMS.length),
  claimMapping: ClaimMapping,
  roleMapping: z.record(z.string().min(1).max(200), RoleTarget),
  defaultRoleId: Role.nullable(),
  jitProvisioning: z.boolean(),
  clockSkewSeconds: z.int().min(0).max(300),
  enabled: z.boolean(),
};

const exactlyOneSource = (v: { jwksUri: string | null; discoveryUrl: string | null }, ctx: z.RefinementCtx) => {
  if ((v.jwksUri === null) === (v.discoveryUrl === null))
    ctx.addIssue({
      code: 'custom',
      path: [v.jwksUri === null ? 'jwksUri' : 'discoveryUrl'],
      message: 'give exactly one of jwksUri and discoveryUrl',
    });
};

/** A trusted-issuer record as registered (POST body), defaults applied. */
export const IssuerBody = z
  .object({
    ...fields,
    jwksUri: fields.jwksUri.default(null),
    discoveryUrl: fields.discoveryUrl.default(null),
    claimMapping: ClaimMapping.default({ email: 'email', roles: 'roles', externalId: 'sub' }),
    roleMapping: fields.roleMapping.default({}),
    defaultRoleId: fields.defaultRoleId.default(null),
    jitProvisioning: fields.jitProvisioning.default(false),
    clockSkewSeconds: fields.clockSkewSeconds.default(60),
    enabled: fields.enabled.default(true),
  })
  .strict()
  .superRefine(exactlyOneSource);

/** A change: the named top-level fields replace the record's (null clears jwksUri, discoveryUrl, defaultRoleId). */
export const IssuerPatchBody = z.object(fields).partial().strict();

export type TrustedIssuerConfig = z.output<typeof IssuerBody>;
export type IssuerPatch = z.output<typeof IssuerPatchBody>;

/** The record the input describes, or a 422 listing every problem under `body`. */
export function validateIssuer(input: unknown): TrustedIssuerConfig {
  const r = IssuerBody.safeParse(input);
  if (r.success) return r.data;
  throw unprocessable(
    r.error.issues.map((i) => ({
      message: i.message,
      path: ['body', ...i.path.map(String)],
      extensions: { reason: i.code },
    })),
  );
}

export { unprocessable };
