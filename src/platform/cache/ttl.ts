/**
 * A TTL spread by ±`fraction` (default 20 %), so that entries written together do not all expire in the same
 * instant and send their misses to the database at once. 0 (disabled) stays 0.
 */
export function jitteredTtlMs(ttlS: number, fraction = 0.2, random: () => number = Math.random): number {
  if (ttlS <= 0) return 0;
  const factor = 1 - fraction + 2 * fraction * random();
  return Math.max(1, Math.round(ttlS * 1000 * factor));
}
