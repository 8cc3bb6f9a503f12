import type { MaintenanceWindow } from '../../contracts/releases/release.events.ts';

const minutes = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/**
 * Whether a time falls inside one of the windows (day of week and HH:MM, UTC). A window whose end is before its
 * start runs past midnight into the next day. No windows: any time.
 */
export function windowAllows(w: MaintenanceWindow | null, at: Date): boolean {
  if (!w || w.windows.length === 0) return true;
  const dow = at.getUTCDay();
  const t = at.getUTCHours() * 60 + at.getUTCMinutes();
  return w.windows.some(({ dow: d, start, end }) => {
    const s = minutes(start);
    const e = minutes(end);
    if (s <= e) return d === dow && t >= s && t < e;
    return (d === dow && t >= s) || ((d + 1) % 7 === dow && t < e);
  });
}
