import type { Feature } from '../../deps.ts';
import { usersProjector } from '../../../projections/users/users.projector.ts';
import { authRoutes } from './http/auth.routes.ts';

export { checkPassword } from './password-policy.ts';
export { hashPassword } from './passwords.ts';
export { TokenService } from './tokens.ts';

export const authFeature: Feature = { name: 'auth', projectors: [usersProjector], routes: authRoutes };
