import { same, type Plan, type Planning } from './planning.ts';

/** Settings, by key: a manifest sets them; it never unsets one. */
export function planSettings({ current, manifest, counts, op }: Planning): Plan['settings'] {
  const settings: Plan['settings'] = [];
  for (const s of manifest.settings ?? []) {
    const cur = current.settings.get(s.key);
    if (same(cur ?? null, s.value ?? null)) counts.settings.unchanged++;
    else {
      op({ resource: 'settings', action: cur === undefined ? 'create' : 'update', key: s.key, risk: 'low' });
      settings.push({ key: s.key, value: s.value });
    }
  }
  return settings;
}
