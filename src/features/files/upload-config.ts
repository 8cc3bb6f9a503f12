import type { AppDeps } from '../../deps.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findSite } from '../../../projections/sites/index.ts';
import { resolveUploadPolicy, type UploadPolicy } from './upload-policy.ts';

/** The upload policy in effect on a site: its `upload_policy` setting, then the environment, then the defaults. */
export async function uploadPolicyOf(deps: Pick<AppDeps, 'db' | 'config'>, siteId: string): Promise<UploadPolicy> {
  const site = await readAsSite(deps.db, siteId, (trx) => findSite(trx, siteId));
  return resolveUploadPolicy(site?.settings.upload_policy, deps.config);
}
