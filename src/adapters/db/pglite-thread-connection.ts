import { EventEmitter } from 'node:events';
import { protocol } from '@electric-sql/pglite';
import type { PgliteThread } from './pglite-thread.ts';

const { serialize } = protocol;
type Serialize = typeof serialize;

/**
 * node-postgres's connection to the embedded database on its thread: PGlite's own (`@electric-sql/pglite/node-postgres`)
 * with the thread in place of the instance. node-postgres writes the frontend messages (PGlite's serializer makes
 * them), the thread runs them, and PGlite's parser here turns the answer into the messages node-postgres reads, so
 * rows, type parsers (`pg.types`) and errors (`code`, `constraint`, `detail`, …) are what the database inside the
 * process gave. One difference: the messages written in one turn of the event loop (a statement's parse, bind,
 * describe, execute and sync) go to the thread together, in one round trip.
 *
 * Like PGlite's, one such connection serves every client the pool makes in turn (the database has one session).
 */
export class ThreadPgConnection extends EventEmitter {
  _connecting = false;
  readonly stream = { destroy: () => this.end() };
  parsedStatements = {};
  submittedNamedStatements = {};
  readonly #thread: PgliteThread;
  readonly #parser = new protocol.Parser();
  #emitMessage = false;
  #batch: Uint8Array[] = [];
  #size = 0;
  /** The answers, emitted in order; `end` comes after the last. */
  #tail: Promise<void> = Promise.resolve();

  constructor(thread: PgliteThread) {
    super();
    this.#thread = thread;
    this.on('newListener', (event) => {
      if (event === 'message') this.#emitMessage = true;
    });
  }

  connect(_port: number, _host: string): void {
    this._connecting = true;
    process.nextTick(() => this.emit('readyForQuery'));
  }

  requestSsl(): void {}
  startup(_config: unknown): void {}
  cancel(_processId: unknown, _secretKey: unknown): void {}
  password(_password: string): void {}
  sendSASLInitialResponseMessage(mechanism: string, initialResponse: string): void {
    this.#send(serialize.sendSASLInitialResponseMessage(mechanism, initialResponse));
  }
  sendSCRAMClientFinalMessage(additionalData: string): void {
    this.#send(serialize.sendSCRAMClientFinalMessage(additionalData));
  }
  query(text: string): void {
    this.#send(serialize.query(text));
  }
  parse(query: Parameters<Serialize['parse']>[0]): void {
    this.#send(serialize.parse(query));
  }
  bind(config: Parameters<Serialize['bind']>[0]): void {
    this.#send(serialize.bind(config));
  }
  execute(config: Parameters<Serialize['execute']>[0]): void {
    this.#send(serialize.execute(config));
  }
  flush(): void {
    this.#send(serialize.flush());
  }
  sync(): void {
    this.#send(serialize.sync());
  }
  close(msg: Parameters<Serialize['close']>[0]): void {
    this.#send(serialize.close(msg));
  }
  describe(msg: Parameters<Serialize['describe']>[0]): void {
    this.#send(serialize.describe(msg));
  }
  sendCopyFromChunk(chunk: ArrayBuffer): void {
    this.#send(serialize.copyData(chunk));
  }
  endCopyFrom(): void {
    this.#send(serialize.copyDone());
  }
  sendCopyFail(msg: string): void {
    this.#send(serialize.copyFail(msg));
  }
  ref(): void {}
  unref(): void {}

  /** As PGlite's: `end` once every answer is in; the client's listeners go now (the next client adds its own). */
  end(): void {
    this.#tail = this.#tail.then(() => void this.emit('end'));
    for (const event of this.eventNames()) if (event !== 'newListener') this.removeAllListeners(event);
    this.#emitMessage = false;
  }

  #send(message: Uint8Array): void {
    if (this.#batch.push(message) === 1) queueMicrotask(() => this.#flush());
    this.#size += message.length;
  }

  /** The turn's messages in one buffer of their own (transferred to the thread, so never a view of a shared pool). */
  #flush(): void {
    const bytes = new Uint8Array(this.#size);
    let at = 0;
    for (const m of this.#batch) {
      bytes.set(m, at);
      at += m.length;
    }
    this.#batch = [];
    this.#size = 0;
    const answer = this.#thread.exec(bytes);
    this.#tail = this.#tail
      .then(() => answer)
      .then((chunks) => this.#emitAll(chunks))
      .catch((err: unknown) => void this.emit('error', err));
  }

  #emitAll(chunks: Uint8Array[]): void {
    for (const chunk of chunks)
      this.#parser.parse(chunk, (msg) => {
        if (this.#emitMessage) this.emit('message', msg);
        this.emit(msg.name === 'error' ? 'errorMessage' : msg.name, msg);
      });
  }
}
