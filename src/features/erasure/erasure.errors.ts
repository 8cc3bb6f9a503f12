import { defineError } from '../../kernel/http/errors.ts';

/** No such person on this site (or none at all): one answer for both. */
export const SubjectNotFound = defineError(
  'RECORD_NOT_FOUND',
  'not_found',
  () => 'no such person on this site',
  () => ({ path: ['body'] }),
);
/** The person belongs to a site the caller does not administer: erasing them is that site's decision too. */
export const SubjectElsewhere = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'this person is also a member of sites you do not administer: an instance administrator erases them',
);
/** The person administers the instance: only another instance administrator erases them. */
export const InstanceAdminErasure = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'this person is an instance administrator: only an instance administrator erases them',
  () => ({ path: ['body'], extensions: { reason: 'instance_admin' } }),
);
/** Erasing the last instance administrator would leave the instance with no one to administer it. */
export const LastInstanceAdmin = defineError(
  'CONFLICT',
  'conflict',
  () => 'this person is the last instance administrator: make another one before erasing them',
  () => ({ path: ['body'], extensions: { reason: 'last_instance_admin' } }),
);
export const ErasureNotFound = defineError<{ id: string }>(
  'RECORD_NOT_FOUND',
  'not_found',
  () => 'no such erasure on this site',
  () => ({ path: ['params', 'id'] }),
);
/** The item does not exist on this site, or its collection's items are not their own subjects. */
export const ItemSubjectNotFound = defineError(
  'RECORD_NOT_FOUND',
  'not_found',
  () => 'no such item whose collection makes each item its own subject',
  () => ({ path: ['body', 'item'] }),
);
/** No key was ever made for the subject, or it was destroyed by an earlier erasure. */
export const NothingSealed = defineError(
  'CONFLICT',
  'conflict',
  () => 'no personal data is sealed for this subject: none was given, or it was erased already',
  () => ({ path: ['body', 'item'] }),
);
/** The person was erased already, by an erasure that has its proof: that proof stands. */
export const AlreadyErased = defineError(
  'CONFLICT',
  'conflict',
  () => 'this person was erased already',
  () => ({ path: ['body'], extensions: { reason: 'already_erased' } }),
);
