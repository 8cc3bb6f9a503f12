import { z } from 'zod';

/** A member of the site as its admins see them. */
export const MemberRecord = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role: z.string(),
    status: z.string(),
  })
  .meta({ id: 'Member' });

/** A row of the member list: the record and when the account was created. */
export const MemberListRow = MemberRecord.extend({ createdAt: z.string() });

export const ListMeta = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

/** What an invitation answers: the same for a new address and for an existing account. */
export const InvitationRecord = z
  .object({ id: z.string(), email: z.string(), role: z.string(), status: z.literal('invited') })
  .meta({ id: 'Invitation' });
