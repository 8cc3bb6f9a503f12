import { PassThrough, type Readable } from 'node:stream';
import { ZipArchive } from 'archiver';
import {
  partWriter,
  textSink,
  writeExportDocument,
  type PersonalDataPart,
  type PersonalDataSubject,
} from '../../platform/privacy/personal-data.ts';

export type ExportFormat = 'json' | 'zip';

/** The media type of each format. */
export const exportType = (format: ExportFormat): string =>
  format === 'zip' ? 'application/zip' : 'application/json; charset=utf-8';

/** A running export: its bytes, and its end (rejected when a part fails; `body` is destroyed with the error then). */
export interface ExportRun {
  body: Readable;
  done: Promise<void>;
}

/**
 * Streams a subject's personal data: one JSON document, or a zip with `export.json` (when, whom, which parts) and
 * one `<part>.json` per part. Parts are written one after another with backpressure, so the export holds a page of
 * one part at a time, whatever the subject's history.
 */
export function exportStream(
  parts: readonly PersonalDataPart[],
  subject: PersonalDataSubject,
  format: ExportFormat,
  exportedAt: Date,
): ExportRun {
  return format === 'json' ? jsonExport(parts, subject, exportedAt) : zipExport(parts, subject, exportedAt);
}

function jsonExport(parts: readonly PersonalDataPart[], subject: PersonalDataSubject, exportedAt: Date): ExportRun {
  const body = new PassThrough();
  const sink = textSink(body);
  const done = (async () => {
    await writeExportDocument(parts, subject, exportedAt, sink.write);
    await sink.flush();
    body.end();
  })();
  done.catch((err: Error) => body.destroy(err));
  return { body, done };
}

function zipExport(parts: readonly PersonalDataPart[], subject: PersonalDataSubject, exportedAt: Date): ExportRun {
  const archive = new ZipArchive({ zlib: { level: 6 } });
  let current: PassThrough | null = null;
  // A reader gone (or a failed archive) ends the entry being written, so its writer stops instead of waiting.
  const stop = () => current?.destroy(new Error('the export stream was closed'));
  archive.on('close', stop);
  archive.on('error', stop);
  const entry = async (name: string, write: (sink: (text: string) => Promise<void>) => Promise<void>) => {
    const stream = (current = new PassThrough());
    archive.append(stream, { name, date: exportedAt });
    const sink = textSink(stream);
    await write(sink.write);
    await sink.flush();
    stream.end();
  };
  const done = (async () => {
    const manifest = {
      exportedAt: exportedAt.toISOString(),
      subject: { id: subject.userId, sites: subject.siteIds },
      parts: parts.map((p) => `${p.name}.json`),
    };
    await entry('export.json', (write) => write(JSON.stringify(manifest)));
    for (const part of parts)
      await entry(`${part.name}.json`, async (write) => {
        const out = partWriter(write);
        await part.write(subject, out);
        await out.end();
      });
    // Not awaited: the archive ends when its reader has read it; its own failures reach that reader.
    void archive.finalize().catch(() => undefined);
  })();
  done.catch((err: Error) => archive.destroy(err));
  return { body: archive, done };
}
