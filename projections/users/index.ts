/**
 * The public surface of the users read model: what slices and other read models may use.
 */
export { usersProjector } from './users.projector.ts';
export {
  findUserByEmail,
  findUserById,
  findUserForToken,
  firstInstanceAdmin,
  listMembers,
  toProfile,
  type UserRow,
} from './users.queries.ts';
export { countInstanceAdmins, countRoleHolders, instanceAdminIds } from './users.queries.ts';
