import { resourceOf, SITE_ADMIN_ROLES, type AccessScope } from '../../kernel/auth/authorizer.ts';
import { dictFrom } from '../../kernel/safe/keys.ts';
import { roleChain, type AccessState } from './access.decider.ts';
import { ACTIONS, type Action, type PermissionDef } from '../../contracts/access/access.types.ts';

/** Who is asking, as far as permissions go. */
export interface Principal {
  /** The role on the site (a system key or a custom role id); null: none. */
  roleId: string | null;
  /** A user id (users' own policies and teams); null for API keys. */
  userId: string | null;
}

/** Rules of the system roles (DESIGN §5); admin and site_admin are not rule-based: they may do everything. */
const everything = (actions: readonly Action[]): PermissionDef[] =>
  actions.flatMap((action) =>
    ['*', 'media'].map((collection) => ({
      id: `system:${collection}:${action}`,
      collection,
      action,
      fields: ['*'],
      conditions: null,
      presets: null,
      validation: null,
    })),
  );
const BUILT_IN = new Map<string, PermissionDef[]>([
  ['editor', everything(ACTIONS)],
  ['viewer', everything(['read'])],
]);

/**
 * The effective permissions of a principal on a site: the union of the rules of every policy attached to its
 * role or any role up its parent chain, to the user directly, and to the user's teams, plus the built-in rules
 * of system roles on the chain. `full` (admin, site_admin anywhere on the chain) may do everything.
 */
export interface PermissionSet {
  full: boolean;
  roleChain: string[];
  /** Policies in effect, for the permissions matrix. */
  policyIds: string[];
  /** Some policy in effect asks for a second factor in the session. */
  requireMfa: boolean;
  rules: PermissionDef[];
}

/** Values of the variables a rule may name ($CURRENT_USER, $CURRENT_ROLE, $NOW). */
export type RuleVars = ReadonlyMap<string, unknown>;

/** The variables of a rule for a user (or key) holding a role, at a time. */
export const ruleVars = (userId: string, roleId: string | null, now: Date): RuleVars =>
  new Map<string, unknown>([
    ['$CURRENT_USER', userId],
    ['$CURRENT_ROLE', roleId],
    ['$NOW', now.toISOString()],
  ]);

export function effectivePermissions(state: AccessState, who: Principal, vars: RuleVars): PermissionSet {
  const chain = who.roleId ? roleChain(state, who.roleId) : [];
  const teams = who.userId
    ? [...state.teams.values()].filter((t) => t.members.includes(who.userId!)).map((t) => t.id)
    : [];
  const policyIds = [
    ...new Set(
      state.attachments
        .filter(
          (a) =>
            (a.target.kind === 'role' && chain.includes(a.target.id)) ||
            (a.target.kind === 'user' && a.target.id === who.userId) ||
            (a.target.kind === 'team' && teams.includes(a.target.id)),
        )
        .map((a) => a.policyId),
    ),
  ];
  const rules = [
    ...chain.flatMap((r) => BUILT_IN.get(r) ?? []),
    ...policyIds.flatMap((id) => state.policies.get(id)?.permissions ?? []),
  ].map((r) => substitute(r, vars));
  const requireMfa = policyIds.some((id) => state.policies.get(id)?.requireMfa === true);
  return { full: chain.some((r) => SITE_ADMIN_ROLES.has(r)), roleChain: chain, policyIds, rules, requireMfa };
}

/**
 * Replaces variables in a filter or presets. Only the variables' own names match: a value such as `constructor`
 * stays a value. Copies are prototype-less, so no key of a stored rule ever reaches a prototype.
 */
export function fillVars(value: unknown, vars: RuleVars): unknown {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && vars.has(v)) return vars.get(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return dictFrom(Object.entries(v).map(([k, x]) => [k, walk(x)] as const));
    return v;
  };
  return walk(value);
}

/** Replaces $CURRENT_USER, $CURRENT_ROLE and $NOW inside a rule's conditions, presets and validation. */
function substitute(rule: PermissionDef, vars: RuleVars): PermissionDef {
  const walk = (v: unknown) => fillVars(v, vars);
  return {
    ...rule,
    conditions: walk(rule.conditions) as PermissionDef['conditions'],
    presets: walk(rule.presets) as PermissionDef['presets'],
    validation: walk(rule.validation) as PermissionDef['validation'],
  };
}

/** What a principal may do with one collection and action: rows (a filter, or null for all) and fields. */
/** The scope of an action: rows, fields, presets and validation (the kernel's AccessScope). */
export type Scope = AccessScope;

/** The scope of an action on a collection, or null when no rule allows it at all. */
export function scopeOf(set: PermissionSet, asked: string, action: Action): Scope | null {
  if (set.full) return { filter: null, fields: null, presets: {}, validation: [] };
  const collection = resourceOf(asked);
  const rules = set.rules.filter(
    (r) => r.action === action && (r.collection === collection || (r.collection === '*' && collection !== 'media')),
  );
  if (!rules.length) return null;
  const unrestricted = rules.some((r) => r.conditions === null || Object.keys(r.conditions).length === 0);
  const everyField = rules.some((r) => r.fields.includes('*'));
  return {
    filter: unrestricted ? null : rules.length === 1 ? rules[0]!.conditions : { _or: rules.map((r) => r.conditions) },
    fields: everyField ? null : new Set(rules.flatMap((r) => r.fields)),
    presets: dictFrom(rules.flatMap((r) => Object.entries(r.presets ?? {}))),
    validation: rules.flatMap((r) => (r.validation ? [r.validation] : [])),
  };
}
