import { createPrivateKey, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import { isPublicAddress } from '../../platform/net/address-policy.ts';
import { GIT_PROVIDERS } from '../../contracts/git/git.events.ts';

/** `owner/name` on GitHub, `group/…/name` on GitLab. */
const Repository = z
  .string()
  // abort: zod runs refinements even on a value that failed its checks; an over-long value stops at its length.
  .max(200, { abort: true })
  .regex(/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+){1,8}$/, 'a repository is owner/name (GitLab: group/…/name)')
  .refine(
    (r) => !r.split('/').some((p) => p.startsWith('.') || p.startsWith('-') || p.endsWith('.git')),
    'no part of a repository path starts with . or - or ends with .git',
  );

/**
 * A provider's own address: https, without credentials, query or fragment, and not a private, loopback or
 * link-local address written as such (names are checked again after DNS when the provider is called, by the
 * outbound helper). `allowPrivate` (SVC_GIT_ALLOW_PRIVATE: a GitLab on the same network, tests) lifts both.
 * The refinements run even when `url()` failed (zod goes on after a failed format), so they parse with
 * `URL.parse` and pass what is not an address at all: `url()` has refused it already.
 */
const baseUrl = (allowPrivate: boolean) =>
  z
    .string()
    .max(500, { abort: true })
    .url()
    .refine((u) => {
      const url = URL.parse(u);
      if (!url) return true;
      const scheme = url.protocol === 'https:' || (allowPrivate && url.protocol === 'http:');
      return scheme && !url.username && !url.password && !url.search && !url.hash;
    }, 'the base URL is https, without credentials, query or fragment')
    .refine((u) => {
      const url = URL.parse(u);
      if (allowPrivate || !url) return true;
      const host = url.hostname.replace(/^\[|\]$/g, '');
      return host !== 'localhost' && !host.endsWith('.localhost') && !(isIP(host) && !isPublicAddress(host));
    }, 'the base URL is not a private, loopback or link-local address');

/** git's ref rules (git-check-ref-format), on the letters a branch of this service may use. */
const Branch = z
  .string()
  .min(1)
  .max(200, { abort: true })
  .regex(/^[A-Za-z0-9._/-]+$/, 'a branch name of letters, digits and . _ / -')
  .refine(
    (b) =>
      !b.includes('..') &&
      !b.endsWith('.') &&
      b.split('/').every((p) => p !== '' && !p.startsWith('.') && !p.startsWith('-') && !p.endsWith('.lock')),
    'a branch name as git allows it (no .., no part empty or starting with . or -, none ending in .lock)',
  );
const IntentsPath = z
  .string()
  .max(300, { abort: true })
  .regex(/^[A-Za-z0-9._/-]*$/, 'a path in the repository')
  .refine(
    (p) => p === '' || p.split('/').every((x) => x !== '' && x !== '.' && x !== '..' && x !== '.git'),
    'a relative path inside the repository (no leading /, no empty, . , .. or .git part)',
  );

export const SyncConfig = z
  .object({
    preview: z.boolean().default(false),
    branch: Branch.default('main'),
    intentsPath: IntentsPath.default('content'),
    previewTtlHours: z.number().int().min(1).max(720).default(72),
  })
  .strict();

const Token = z.string().min(1).max(4096);

/** Whether a text is an RSA private key in PEM (GitHub Apps' keys are PKCS#1 `RSA PRIVATE KEY`; PKCS#8 also reads). */
function isRsaPrivateKey(pem: string): boolean {
  if (!/^-----BEGIN (RSA )?PRIVATE KEY-----/.test(pem.trim())) return false;
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    // GitHub's keys are 2 048 bits; past 4 096 every signature costs the server far more for nothing.
    return key.asymmetricKeyType === 'rsa' && bits >= 2048 && bits <= 4096;
  } catch {
    return false;
  }
}

/**
 * A GitHub App's installation (with `authMethod: app` on GitHub): the app's id (or its client id, which GitHub also
 * takes as the JWT's issuer), the installation's id and the app's private key (write-only: sealed, never answered).
 */
export const GitHubAppInput = z
  .object({
    appId: z
      .string()
      .regex(/^(?:[1-9][0-9]{0,19}|Iv[0-9A-Za-z.]{4,40})$/, 'the app id (digits) or its client id (Iv…)'),
    installationId: z.string().regex(/^[1-9][0-9]{0,14}$/, "the installation's id (digits)"),
    privateKey: z
      .string()
      .max(16_384, { abort: true })
      .refine(isRsaPrivateKey, "the app's private key: an RSA key of 2048 to 4096 bits in PEM, as GitHub gives it"),
  })
  .strict();
export type GitHubAppInput = z.infer<typeof GitHubAppInput>;
const Secret = z
  .string()
  .min(20, 'a webhook secret has at least 20 characters')
  .max(256, { abort: true })
  .refine((v) => new Set(v).size >= 10, 'a webhook secret has at least 10 different characters');

/** The create's body; `allowPrivate` as for `baseUrl`. */
export const integrationCreate = (allowPrivate: boolean) =>
  z
    .object({
      provider: z.enum(GIT_PROVIDERS),
      repository: Repository,
      baseUrl: baseUrl(allowPrivate).nullable().optional(),
      authMethod: z.enum(['app', 'pat']),
      token: Token.optional(),
      webhookSecret: Secret.optional(),
      app: GitHubAppInput.optional(),
      sync_config: SyncConfig.optional(),
    })
    .strict()
    .refine((b) => !b.app || (b.provider === 'github' && b.authMethod === 'app'), {
      message: 'an app is given for a GitHub integration with authMethod app',
      path: ['app'],
    });
export const IntegrationCreate = integrationCreate(false);
export type IntegrationCreate = z.infer<typeof IntegrationCreate>;

/** The patch's body; `allowPrivate` as for `baseUrl`. */
export const integrationPatch = (allowPrivate: boolean) =>
  z
    .object({
      repository: Repository.optional(),
      baseUrl: baseUrl(allowPrivate).nullable().optional(),
      authMethod: z.enum(['app', 'pat']).optional(),
      /** null removes the token. */
      token: Token.nullable().optional(),
      webhookSecret: Secret.optional(),
      /** null removes the app. */
      app: GitHubAppInput.nullable().optional(),
      // Without defaults: a patch changes only the keys it names.
      sync_config: z
        .object({
          preview: z.boolean().optional(),
          branch: Branch.optional(),
          intentsPath: IntentsPath.optional(),
          previewTtlHours: z.number().int().min(1).max(720).optional(),
        })
        .strict()
        .optional(),
    })
    .strict();
export const IntegrationPatch = integrationPatch(false);
export type IntegrationPatch = z.infer<typeof IntegrationPatch>;

export const IntegrationRecord = z
  .object({
    id: z.string(),
    provider: z.enum(GIT_PROVIDERS),
    repository: z.string(),
    baseUrl: z.string().nullable(),
    authMethod: z.enum(['app', 'pat']),
    hasToken: z.boolean(),
    /** The GitHub App it acts as (its private key stays behind), or null. */
    app: z.object({ appId: z.string(), installationId: z.string() }).nullable(),
    webhookUrl: z.string(),
    sync_config: z.object({
      preview: z.boolean(),
      branch: z.string(),
      intentsPath: z.string(),
      previewTtlHours: z.number().int(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'GitIntegration' });
export type IntegrationRecord = z.infer<typeof IntegrationRecord>;

/** A webhook secret made for the caller when they give none: 32 random bytes, base64url. */
export const generateSecret = () => randomBytes(32).toString('base64url');
