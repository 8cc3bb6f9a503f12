import WebSocket from 'ws';

/** A frame as a realtime client sees it: SSE's `id`/`event`/`data`, or a WebSocket message's `id`/`type`/`data`. */
export interface SeenFrame {
  id: string | null;
  type: string;
  // Frames are read by the tests as they please (their shapes are asserted there).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
  /** When it arrived (ms since the epoch). */
  at?: number;
}

/** Frames in arrival order, and waits for the next ones that match. */
class FrameQueue {
  readonly frames: SeenFrame[] = [];
  private taken = 0;
  private wake: (() => void) | null = null;
  closed = false;

  push(f: SeenFrame): void {
    this.frames.push({ ...f, at: Date.now() });
    this.wake?.();
  }

  end(): void {
    this.closed = true;
    this.wake?.();
  }

  /** The next frame not yet taken that matches (frames before it that do not match are skipped). */
  async next(match: (f: SeenFrame) => boolean = () => true, timeoutMs = 10_000): Promise<SeenFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.taken < this.frames.length) {
        const f = this.frames[this.taken++]!;
        if (match(f)) return f;
      }
      if (this.closed) throw new Error(`connection closed; frames: ${JSON.stringify(this.frames)}`);
      if (Date.now() > deadline)
        throw new Error(`no matching frame in ${timeoutMs} ms; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 50);
      });
      this.wake = null;
    }
  }

  /** Waits `ms` and answers the frames that arrived and match, taking none. */
  async during(ms: number, match: (f: SeenFrame) => boolean = () => true): Promise<SeenFrame[]> {
    const from = this.frames.length;
    await new Promise((r) => setTimeout(r, ms));
    return this.frames.slice(from).filter(match);
  }
}

export interface SseClient extends FrameQueue {
  status: number;
  body: string;
  close(): void;
}

/** Opens `GET url` as an EventSource would and parses its frames; a non-200 answer is read whole into `body`. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ctrl.signal });
  const q = new FrameQueue() as SseClient;
  q.status = res.status;
  q.body = '';
  q.close = () => ctrl.abort();
  if (res.status !== 200) {
    q.body = await res.text();
    q.end();
    return q;
  }
  void (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let at: number;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          let id: string | null = null;
          let type = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) type = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) q.push({ id, type, data: JSON.parse(data.join('\n')) });
        }
      }
    } catch {
      // aborted
    }
    q.end();
  })();
  return q;
}

export interface WsClient extends FrameQueue {
  socket: WebSocket;
  send(message: unknown): void;
  close(): void;
  /** The HTTP answer of a refused upgrade. */
  refused: { status: number; body: string } | null;
}

/** Opens a WebSocket and queues its JSON messages; a refused upgrade is answered in `refused`. */
export async function openWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const q = new FrameQueue() as WsClient;
  const socket = new WebSocket(url, { headers });
  q.socket = socket;
  q.refused = null;
  q.send = (m) => socket.send(typeof m === 'string' ? m : JSON.stringify(m));
  q.close = () => socket.close();
  socket.on('message', (raw) => {
    const m = JSON.parse(raw.toString());
    q.push({ id: m.id, type: m.type, data: m.data });
  });
  socket.on('close', () => q.end());
  await new Promise<void>((resolve) => {
    socket.on('open', () => resolve());
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => {
        q.refused = { status: res.statusCode ?? 0, body };
        q.end();
        resolve();
      });
    });
    socket.on('error', () => {
      q.end();
      resolve();
    });
  });
  return q;
}
