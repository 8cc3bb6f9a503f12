import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { findUserByEmail, findUserById, toProfile } from '../../../../projections/users/users.queries.ts';
import { verifyPassword } from '../passwords.ts';

const LoginBody = z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(1024) });

export const authRoutes: FastifyPluginAsync<AppDeps> = async (plain, { db, tokens }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/v1/auth/login',
    { config: { caller: 'public', site: false }, schema: { body: LoginBody, tags: ['auth'] } },
    async (req) => {
      const user = await findUserByEmail(db, req.body.email);
      const ok = await verifyPassword(user?.passwordHash ?? null, req.body.password);
      // One answer for unknown user and wrong password.
      if (!user || !ok) throw new DomainError('UNAUTHENTICATED', 'invalid email or password');
      const { token, expiresIn } = await tokens.issue(user.userId, user.tokenVersion);
      return { data: { token, expiresIn, user: toProfile(user) } };
    },
  );

  app.get('/api/v1/auth/me', { config: { site: false }, schema: { tags: ['auth'] } }, async (req) => {
    const user = await findUserById(db, req.actor!.id);
    if (!user) throw new DomainError('UNAUTHENTICATED', 'the user no longer exists');
    return { data: { ...toProfile(user), instanceAdmin: user.instanceAdmin, sites: user.roles } };
  });
};
