import type { Logger } from 'pino';
import type { AppDeps } from './deps.ts';
import { resumeSetup, runSetup } from './features/setup/index.ts';
import type { EventMetadata } from './kernel/es/event.ts';
import { SYSTEM_SITE } from './kernel/tenancy/site.ts';
import { instanceState } from '../projections/instance/index.ts';

/** On start: finish a setup a crash interrupted, or run setup from SVC_ADMIN_EMAIL / SVC_ADMIN_PASSWORD. */
export async function bootstrap(deps: AppDeps, log: Logger): Promise<void> {
  const metadata: EventMetadata = {
    siteId: SYSTEM_SITE,
    actor: { type: 'system', id: 'bootstrap' },
    correlationId: 'bootstrap',
    causationId: null,
    requestId: null,
    occurredAt: deps.clock.now().toISOString(),
  };
  if (await resumeSetup(deps, metadata)) log.info('finished an interrupted setup');
  const { config } = deps;
  if ((await instanceState(deps.db)).setupComplete) return;
  if (config.SVC_ADMIN_EMAIL && config.SVC_ADMIN_PASSWORD) {
    await runSetup(
      deps,
      {
        siteId: config.SVC_SITE_ID,
        siteName: config.SVC_SITE_NAME,
        email: config.SVC_ADMIN_EMAIL,
        password: config.SVC_ADMIN_PASSWORD,
      },
      metadata,
    );
    log.info({ siteId: config.SVC_SITE_ID }, 'setup completed from the environment');
  } else {
    log.warn('setup is not complete: POST /api/v1/setup/complete (see GET /setup/capabilities)');
  }
}
