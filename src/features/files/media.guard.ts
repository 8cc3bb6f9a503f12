import type { Authorizer, Action } from '../../kernel/auth/authorizer.ts';
import { RESOURCES } from '../../kernel/auth/authorizer.ts';
import type { Principal } from '../../kernel/http/access.ts';
import { ConditionalMediaRule, PublicCannotUpload } from './media.errors.ts';

/**
 * The `media` rights of routes that have no rows to hold a rule's conditions against (raw media by key, transform
 * presets): only a grant without conditions counts. Conditions on `media` rules filter file records, where each row
 * can be checked; here they would be ignored, so a conditional grant is refused instead (403).
 */
export function requireMedia(authorizer: Authorizer, caller: Principal, action: Action) {
  return authorizer.require(caller, RESOURCES.media, action).then((scope) => {
    if (scope.filter) throw new ConditionalMediaRule({ action });
    return scope;
  });
}

/** Upload guard rule 1: the site's public role (or a role under it) uploads nothing, whatever its rules grant. */
export async function refusePublicUpload(authorizer: Authorizer, caller: Principal): Promise<void> {
  if ((await authorizer.rights(caller)).public) throw new PublicCannotUpload();
}
