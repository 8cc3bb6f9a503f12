import type { Writable } from 'node:stream';

/** Whose personal data an export gathers, and from where (GDPR art. 15/20). */
export interface PersonalDataSubject {
  userId: string;
  /** The sites whose data the export reads, each under its own tenancy. */
  siteIds: string[];
  /**
   * The subject's own export (true): instance-wide records about them are theirs in full. A site's subject-access
   * request (false): instance-wide records that name another site (a membership there, an invitation) stay out.
   */
  everySite: boolean;
}

/**
 * Streams one part's JSON: either one whole value, or the elements of an array one at a time. Each call waits while
 * the reader is behind (backpressure), so a part never holds more than the page it is writing.
 */
export interface PartWriter {
  /** The part is this value (at most once, and never after `item`). */
  value(v: unknown): Promise<void>;
  /** The part is an array and this is its next element. A part that writes nothing is `[]`. */
  item(v: unknown): Promise<void>;
}

/** One slice's share of a subject's personal data, written under a name (`profile`, `sessions`, …). */
export interface PersonalDataPart {
  /** Lower-case letters, digits and `_`: a key of the document and a file name in the zip. */
  name: string;
  write(subject: PersonalDataSubject, out: PartWriter): Promise<void>;
}

export const PART_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** Text written to a stream in chunks of about 16 KiB, waiting for `drain` when its buffer is full. */
export interface TextSink {
  write(text: string): Promise<void>;
  /** Sends what is buffered. */
  flush(): Promise<void>;
}

const CHUNK = 16 * 1024;

/** A sink over `stream`; a write fails once the stream is gone (the client went away), which ends the export. */
export function textSink(stream: Writable): TextSink {
  let buffered = '';
  const send = (): Promise<void> => {
    const text = buffered;
    buffered = '';
    if (stream.destroyed || stream.writableEnded) return Promise.reject(new Error('the export stream was closed'));
    if (stream.write(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (err?: Error) => {
        stream.off('drain', onDrain);
        stream.off('close', onClose);
        stream.off('error', done);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new Error('the export stream was closed'));
      stream.on('drain', onDrain);
      stream.on('close', onClose);
      stream.on('error', done);
    });
  };
  return {
    write(text) {
      buffered += text;
      return buffered.length >= CHUNK ? send() : Promise.resolve();
    },
    flush: () => (buffered ? send() : Promise.resolve()),
  };
}

const json = (v: unknown) => JSON.stringify(v) ?? 'null';

/** A part writer over `write`; `end()` closes the part (an array, or `[]` when nothing was written). */
export function partWriter(write: (text: string) => Promise<void>): PartWriter & { end(): Promise<void> } {
  let mode: 'none' | 'value' | 'array' = 'none';
  return {
    async value(v) {
      if (mode !== 'none') throw new Error('a part is one value, written once');
      mode = 'value';
      await write(json(v));
    },
    async item(v) {
      if (mode === 'value') throw new Error('a part written as a value takes no items');
      const first = mode === 'none';
      mode = 'array';
      await write((first ? '[' : ',') + json(v));
    },
    async end() {
      if (mode === 'array') await write(']');
      else if (mode === 'none') await write('[]');
    },
  };
}

/** Checks that part names are well formed and unique (a misdeclared slice fails at start, not in an export). */
export function checkParts(parts: readonly PersonalDataPart[]): PersonalDataPart[] {
  const seen = new Set<string>();
  for (const p of parts) {
    if (!PART_NAME.test(p.name)) throw new Error(`personal-data part name ${JSON.stringify(p.name)} is malformed`);
    if (seen.has(p.name)) throw new Error(`personal-data part ${p.name} is declared twice`);
    seen.add(p.name);
  }
  return [...parts];
}

/** Writes a subject's parts as one JSON document `{ exportedAt, subject, parts: { <name>: … } }`, part by part. */
export async function writeExportDocument(
  parts: readonly PersonalDataPart[],
  subject: PersonalDataSubject,
  exportedAt: Date,
  write: (text: string) => Promise<void>,
): Promise<void> {
  const head = { exportedAt: exportedAt.toISOString(), subject: { id: subject.userId, sites: subject.siteIds } };
  await write(`${json(head).slice(0, -1)},"parts":{`);
  for (const [i, part] of parts.entries()) {
    await write(`${i === 0 ? '' : ','}${json(part.name)}:`);
    const out = partWriter(write);
    await part.write(subject, out);
    await out.end();
  }
  await write('}}');
}
