import type { Logger } from 'pino';

/**
 * Work a request starts that its answer must not wait for, because its cost would show in the answer's time (sign-up
 * of a new address against a known one). In process and bounded: beyond `max` pieces at once a piece is skipped and
 * logged (the caller has its answer already, so a refusal could only be logged), errors are logged, never left
 * unhandled, and `close` (shutdown) takes no more and waits for what runs before the database closes. Not durable: a
 * crash loses the pieces under way, which the caller repeats as they would a lost mail.
 */
export class AfterAnswer {
  private readonly pending = new Set<Promise<void>>();
  private gate: { wait: Promise<void>; open: () => void } | null = null;
  private closed = false;

  constructor(private readonly opts: { max: number; log: Pick<Logger, 'warn' | 'error'> }) {}

  /** Starts `work` now; false (and a log line) when `max` pieces run or the node is shutting down. */
  run(name: string, work: () => Promise<void>): boolean {
    if (this.closed || this.pending.size >= this.opts.max) {
      this.opts.log.warn(
        { work: name, pending: this.pending.size, max: this.opts.max, closing: this.closed },
        'after-answer work skipped: too much under way',
      );
      return false;
    }
    const piece = (this.gate?.wait ?? Promise.resolve())
      .then(() => work())
      .catch((err: unknown) => this.opts.log.error({ err, work: name }, 'after-answer work failed'))
      .finally(() => this.pending.delete(piece));
    this.pending.add(piece);
    return true;
  }

  /** How many pieces are under way. */
  get size(): number {
    return this.pending.size;
  }

  /** Resolves when every piece started before the call (and any started meanwhile) has ended. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Takes no more work and waits for the pieces under way (graceful shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    this.gate?.open();
    this.gate = null;
    await this.settled();
  }

  /**
   * Tests: pieces started from now on wait until the returned function is called, so a test can look at the state
   * between an answer and its work.
   */
  hold(): () => void {
    if (!this.gate) {
      let open!: () => void;
      const wait = new Promise<void>((r) => (open = r));
      this.gate = { wait, open };
    }
    const gate = this.gate;
    return () => {
      gate.open();
      if (this.gate === gate) this.gate = null;
    };
  }
}
