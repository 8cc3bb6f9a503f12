import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import type { UserEvent, UserRegistered } from './user.events.ts';

export type UserState = { exists: false } | { exists: true; roles: Record<string, string> };

/** Create a user identity. */
export type RegisterUser = { type: 'RegisterUser'; data: Omit<UserRegistered['data'], 'at'> & { now: string } };
/** Give a user a role on a site. */
export type GrantSiteRole = {
  type: 'GrantSiteRole';
  data: { userId: string; siteId: string; role: string; now: string };
};
export type UserCommand = RegisterUser | GrantSiteRole;

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'UserRegistered':
        return { exists: true, roles: {} };
      case 'UserSiteRoleGranted':
        return s.exists ? { exists: true, roles: { ...s.roles, [e.data.siteId]: e.data.role } } : s;
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    switch (cmd.type) {
      case 'RegisterUser': {
        if (s.exists) throw new DomainError('CONFLICT', `user ${cmd.data.userId} already exists`);
        const { now, ...rest } = cmd.data;
        return [{ type: 'UserRegistered', data: { ...rest, at: now } }];
      }
      case 'GrantSiteRole':
        if (!s.exists) throw new DomainError('NOT_FOUND', `user ${cmd.data.userId} not found`);
        if (s.roles[cmd.data.siteId] === cmd.data.role) return [];
        return [
          {
            type: 'UserSiteRoleGranted',
            data: { userId: cmd.data.userId, siteId: cmd.data.siteId, role: cmd.data.role, at: cmd.data.now },
          },
        ];
      default:
        return assertNever(cmd);
    }
  },
};
