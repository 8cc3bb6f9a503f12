import { MAIL_MAX_ATTEMPTS } from '../../platform/mail/outbox.ts';
import { pruneOutbox } from '../../platform/mail/outbox.ts';
import {
  RETENTION_KINDS,
  retentionEnvKey,
  type RetentionKind,
  type RetentionKindName,
} from '../../kernel/retention.ts';

/** A kind of the contract that no slice prunes yet: listed with its horizon, `available: false`. */
export type PlannedKind = Omit<RetentionKind, 'prune'>;

const planned = (kind: RetentionKindName, defaultDays: number, describe: string): PlannedKind => ({
  kind,
  defaultDays,
  envKey: retentionEnvKey(kind),
  describe,
});

/**
 * Kinds whose slices do not exist yet, or keep nothing to prune: when a slice declares the kind with `prune` in its
 * `Feature.retention`, its declaration replaces the entry here (same name, same default).
 */
export const PLANNED_KINDS: readonly PlannedKind[] = [
  planned(
    'activity',
    365,
    'Activity feed rows. None today: the audit view reads the event log itself (never pruned; personal data in it ' +
      'is shredded) and the site activity figure is one counter per site.',
  ),
];

/** The mail outbox is a kernel table: the retention slice declares its kind. */
export const mailOutboxKind: RetentionKind = {
  kind: 'mail_outbox',
  defaultDays: 90,
  envKey: retentionEnvKey('mail_outbox'),
  describe: 'Mails sent (or given up on after every attempt failed) in the outbox; unsent mails are kept.',
  prune: (db, siteId, before) => pruneOutbox(db, siteId, before, MAIL_MAX_ATTEMPTS),
};

/** A kind of the catalogue, with whether a slice prunes it. */
export type CatalogueEntry = (PlannedKind & { available: false }) | (RetentionKind & { available: true });

/**
 * Every kind of the contract in its order, each from the slice that declares it or else from the planned list; a
 * declared kind outside the contract, or declared twice, is a programming error caught at the first use.
 */
export function catalogue(declared: readonly RetentionKind[]): CatalogueEntry[] {
  const byName = new Map<string, RetentionKind>();
  for (const k of declared) {
    if (!(RETENTION_KINDS as readonly string[]).includes(k.kind)) throw new Error(`unknown retention kind ${k.kind}`);
    if (byName.has(k.kind)) throw new Error(`retention kind ${k.kind} declared twice`);
    byName.set(k.kind, k);
  }
  const plannedByName = new Map(PLANNED_KINDS.map((p) => [p.kind as string, p]));
  return RETENTION_KINDS.map((name): CatalogueEntry => {
    const k = byName.get(name);
    if (k) return { ...k, available: true };
    const p = plannedByName.get(name);
    if (!p) throw new Error(`retention kind ${name} is neither declared nor planned`);
    return { ...p, available: false };
  });
}
