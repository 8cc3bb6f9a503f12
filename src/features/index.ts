import type { Feature } from '../deps.ts';
import { accessFeature } from './access/index.ts';
import { releasesFeature } from './releases/index.ts';
import { apiKeysFeature } from './api-keys/index.ts';
import { auditFeature } from './audit/index.ts';
import { authFeature } from './auth/index.ts';
import { encryptionFeature } from './encryption/index.ts';
import { filesFeature } from './files/index.ts';
import { issuersFeature } from './issuers/index.ts';
import { itemsFeature } from './items/index.ts';
import { pagesFeature } from './pages/index.ts';
import { privacyFeature } from './privacy/index.ts';
import { schemaFeature } from './schema/index.ts';
import { setupFeature } from './setup/index.ts';
import { sitesFeature } from './sites/index.ts';
import { systemFeature } from './system/index.ts';
import { webhooksFeature } from './webhooks/index.ts';
import { configFeature } from './config/index.ts';
import { consentsFeature } from './consents/index.ts';
import { erasureFeature } from './erasure/index.ts';
import { typegenFeature } from './typegen/index.ts';
import { retentionFeature } from './retention/index.ts';
import { emailFeature } from './email/index.ts';
import { flowsFeature } from './flows/index.ts';
import { presetsFeature } from './presets/index.ts';
import { searchFeature } from './search/index.ts';
import { tmFeature } from './tm/index.ts';
import { notificationsFeature } from './notifications/index.ts';
import { pushFeature } from './push/index.ts';
import { realtimeFeature } from './realtime/index.ts';
import { gitFeature } from './git/index.ts';
import { studioFeature } from './studio/index.ts';

/** Every slice of the service; adding one is one line here. */
export const features: Feature[] = [
  systemFeature,
  setupFeature,
  authFeature,
  issuersFeature,
  apiKeysFeature,
  sitesFeature,
  schemaFeature,
  itemsFeature,
  accessFeature,
  releasesFeature,
  pagesFeature,
  encryptionFeature,
  filesFeature,
  auditFeature,
  webhooksFeature,
  configFeature,
  consentsFeature,
  erasureFeature,
  typegenFeature,
  retentionFeature,
  emailFeature,
  privacyFeature,
  flowsFeature,
  presetsFeature,
  searchFeature,
  tmFeature,
  notificationsFeature,
  pushFeature,
  realtimeFeature,
  gitFeature,
  // Last: its catch-all GET hands every path the others do not serve to the one 404.
  studioFeature,
];

export const allProjectors = () => features.flatMap((f) => f.projectors);
