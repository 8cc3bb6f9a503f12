/** The verdict of one counted request against a fixed window. */
export interface RateVerdict {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one (never negative). */
  remaining: number;
  /** Seconds until the window resets. */
  resetS: number;
}

export interface RateRule {
  /** Requests allowed per window. */
  max: number;
  windowS: number;
}

/**
 * Counts hits per key in fixed windows. In-process by default, shared in Redis when REDIS_URL is set, so
 * that every node of a cluster counts against the same budget.
 */
export interface RateLimiter {
  /** Counts one hit on `key` and says whether it is within the rule. */
  hit(key: string, rule: RateRule): Promise<RateVerdict>;
  /** Forgets a key (a successful login clears its failure count). */
  reset(key: string): Promise<void>;
  /** Where counting happens and whether it works: `memory`, or Redis `up`/`down`. */
  health(): Promise<{ kind: 'memory' | 'redis'; status: 'ok' | 'down' }>;
  close(): Promise<void>;
}

/** A process-local limiter: a map of windows, swept as they expire. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private sweptAt = 0;
  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, rule: RateRule): Promise<RateVerdict> {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + rule.windowS * 1000 };
      this.windows.set(key, w);
    }
    w.count += 1;
    return verdict(w.count, rule.max, w.resetAt - now);
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  async health(): Promise<{ kind: 'memory'; status: 'ok' }> {
    return { kind: 'memory', status: 'ok' };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}

export function verdict(count: number, max: number, msLeft: number): RateVerdict {
  return {
    allowed: count <= max,
    limit: max,
    remaining: Math.max(0, max - count),
    resetS: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}
