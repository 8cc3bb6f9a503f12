import type { Feature } from '../../deps.ts';
import { consentsProjector } from '../../../projections/consents/index.ts';
import { consentsRoutes } from './http/consents.routes.ts';
import { consentsPersonalData } from './personal-data.ts';

export { restrictedPeople } from './consent.commands.ts';
export { concernsRestricted } from './restricted-event.ts';
export { CONSENT_TYPES, type ConsentType } from '../../contracts/consents/consent.events.ts';

/** Consents per site and person, and restriction of processing. */
export const consentsFeature: Feature = {
  name: 'consents',
  projectors: [consentsProjector],
  routes: consentsRoutes,
  personalData: (deps) => consentsPersonalData(deps),
};
