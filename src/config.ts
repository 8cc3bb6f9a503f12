import { z } from 'zod';
import { loadKeyring, type Keyring } from './kernel/crypto/keyring.ts';

const bool = (d: boolean) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? d : v === 'true' || v === '1'));

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(1989),
  HOST: z.string().default('0.0.0.0'),
  NODE_ENV: z.string().default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SVC_DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  EVENTSTORE_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_S: z.coerce.number().int().min(30).default(900),
  SVC_ADMIN_EMAIL: z.string().email().optional(),
  SVC_ADMIN_PASSWORD: z.string().optional(),
  SVC_SITE_ID: z.string().default('main'),
  SVC_SITE_NAME: z.string().default('Main site'),
  SVC_REQUIRE_SETUP_TOKEN: bool(false),
  SVC_SETUP_TOKEN: z.string().optional(),
  SVC_OBSERVABILITY_TOKEN: z.string().optional(),
  SVC_ASYNC_PROJECTION_POLL_MS: z.coerce.number().int().min(10).default(200),
  SVC_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  ENCRYPTION_KEY: z.string().optional(),
});

export type Config = z.infer<typeof EnvSchema> & { keyring: Keyring };

/** Reads the environment once; a bad value stops the start with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const r = EnvSchema.safeParse(env);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  try {
    return { ...r.data, keyring: loadKeyring(env) };
  } catch (err) {
    throw new Error(`invalid configuration:\n  ${(err as Error).message}`);
  }
}
