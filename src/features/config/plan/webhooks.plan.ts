import type { ManifestWebhook } from '../manifest.ts';
import { problem, same, type Plan, type Planning } from './planning.ts';

/** A webhook as compared: the order of its events and collections does not matter. */
const webhookForm = (w: ManifestWebhook) => ({
  ...w,
  events: [...w.events].sort(),
  collections: w.collections ? [...w.collections].sort() : null,
});

/** The collections a webhook names are collections the site will have. */
export function checkWebhookReferences({ manifest, errors, willHave }: Planning): void {
  manifest.webhooks?.forEach((w, i) =>
    w.collections?.forEach((c, j) => {
      if (!willHave.has(c))
        errors.push(
          problem('DANGLING_REFERENCE', `webhook of an unknown collection ${c}`, ['webhooks', i, 'collections', j]),
        );
    }),
  );
}

/** Webhooks, by name: created or updated; `replace-all` deletes those the manifest does not name. */
export function planWebhooks({ current, manifest, mode, counts, op }: Planning): Plan['webhooks'] {
  const webhooks: Plan['webhooks'] = { create: [], update: [], delete: [] };
  if (!manifest.webhooks) return webhooks;
  const haveHooks = new Map(current.webhooks.map((w) => [w.name, w]));
  const names = new Set<string>();
  for (const w of manifest.webhooks) {
    names.add(w.name);
    const cur = haveHooks.get(w.name);
    if (!cur) {
      op({ resource: 'webhooks', action: 'create', key: w.name, risk: 'low' });
      webhooks.create.push(w);
    } else if (!same(webhookForm(cur), webhookForm(w))) {
      const changes = (['url', 'events', 'collections', 'enabled'] as const).filter(
        (a) => !same(webhookForm(cur)[a], webhookForm(w)[a]),
      );
      op({ resource: 'webhooks', action: 'update', key: w.name, risk: 'low', changes: [...changes] });
      webhooks.update.push(w);
    } else counts.webhooks.unchanged++;
  }
  if (mode === 'replace-all')
    for (const w of current.webhooks)
      if (!names.has(w.name)) {
        op({ resource: 'webhooks', action: 'delete', key: w.name, risk: 'medium' });
        webhooks.delete.push(w.name);
      }
  return webhooks;
}
