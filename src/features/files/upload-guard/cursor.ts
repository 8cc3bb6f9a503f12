import type { FileHandle } from 'node:fs/promises';

/** The bytes the cursor holds at once; every read of the guard is bounded by it. */
export const WINDOW = 64 * 1024;

/** The file ends inside a structure: the walkers turn it into UPLOAD_MALFORMED with their format's words. */
export class Truncated extends Error {
  constructor(readonly at: number) {
    super(`the file ends at byte ${at} inside a structure`);
    this.name = 'Truncated';
  }
}

/**
 * A forward reader over a file on disk through one reused window, so a walker can step through a 50 MB image
 * holding at most WINDOW bytes. Views it hands out are valid until the next read.
 */
export class Cursor {
  pos = 0;
  private readonly buf = Buffer.allocUnsafe(WINDOW);
  private start = 0;
  private length = 0;

  constructor(
    private readonly fh: FileHandle,
    readonly size: number,
  ) {}

  get remaining(): number {
    return this.size - this.pos;
  }

  /** Makes `n` (at most WINDOW) bytes from `pos` available; false when the file ends before. */
  async have(n: number): Promise<boolean> {
    if (n > WINDOW) throw new RangeError(`a read of ${n} bytes is above the window`);
    if (this.pos + n > this.size) return false;
    if (this.pos >= this.start && this.pos + n <= this.start + this.length) return true;
    const want = Math.min(WINDOW, this.size - this.pos);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await this.fh.read(this.buf, got, want - got, this.pos + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    this.start = this.pos;
    this.length = got;
    return got >= n;
  }

  /** A view of the buffered bytes from `pos` (at least one unless the file has ended). */
  async view(): Promise<Buffer> {
    if (!(await this.have(Math.min(1, this.remaining)))) throw new Truncated(this.pos);
    return this.buf.subarray(this.pos - this.start, this.length);
  }

  /** A copy of the next `n` bytes; the cursor moves past them. */
  async take(n: number): Promise<Buffer> {
    if (!(await this.have(n))) throw new Truncated(this.size);
    const at = this.pos - this.start;
    this.pos += n;
    return Buffer.from(this.buf.subarray(at, at + n));
  }

  /** A copy of the next `n` bytes, the cursor staying where it is. */
  async peek(n: number): Promise<Buffer> {
    if (!(await this.have(n))) throw new Truncated(this.size);
    const at = this.pos - this.start;
    return Buffer.from(this.buf.subarray(at, at + n));
  }

  /**
   * Fresh buffers over `[from, from + n)` read on their own, for a consumer that keeps them after it returns
   * (a zlib stream); it does not move the cursor.
   */
  async *range(from: number, n: number): AsyncGenerator<Buffer> {
    for (let at = from, end = Math.min(from + n, this.size); at < end;) {
      const chunk = Buffer.allocUnsafe(Math.min(WINDOW, end - at));
      const { bytesRead } = await this.fh.read(chunk, 0, chunk.length, at);
      if (bytesRead === 0) return;
      at += bytesRead;
      yield chunk.subarray(0, bytesRead);
    }
  }

  async u8(): Promise<number> {
    if (!(await this.have(1))) throw new Truncated(this.size);
    return this.buf[this.pos++ - this.start]!;
  }

  async u16be(): Promise<number> {
    return (await this.take(2)).readUInt16BE(0);
  }

  async u16le(): Promise<number> {
    return (await this.take(2)).readUInt16LE(0);
  }

  async u32be(): Promise<number> {
    return (await this.take(4)).readUInt32BE(0);
  }

  skip(n: number): void {
    if (this.pos + n > this.size) throw new Truncated(this.size);
    this.pos += n;
  }

  /** Hands the next `n` bytes to `each` one window at a time (each view valid only during its call). */
  async stream(n: number, each: (chunk: Buffer) => void | Promise<void>): Promise<void> {
    if (this.pos + n > this.size) throw new Truncated(this.size);
    const end = this.pos + n;
    while (this.pos < end) {
      const view = await this.view();
      const chunk = view.subarray(0, Math.min(view.length, end - this.pos));
      this.pos += chunk.length;
      await each(chunk);
    }
  }
}
