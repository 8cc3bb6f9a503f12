import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import * as corpus from '../../../../test/fixtures/uploads/corpus.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { DEFAULT_UPLOAD_POLICY } from './catalogue.ts';
import { inspectUpload } from './inspect.ts';

/** Every code the guard may answer with; anything else (a TypeError, a RangeError) is a bug. */
const GUARD_CODES = new Set([
  'VALIDATION_FAILED',
  'UPLOAD_TYPE_NOT_ALLOWED',
  'UPLOAD_TYPE_MISMATCH',
  'UPLOAD_EXECUTABLE',
  'UPLOAD_ACTIVE_CONTENT',
  'UPLOAD_EMBEDDED_PAYLOAD',
  'UPLOAD_MALFORMED',
  'UPLOAD_DIMENSIONS_EXCEEDED',
]);

const DECLARED = [
  { filename: 'x.png', mimeType: 'image/png', clean: corpus.cleanPng },
  { filename: 'x.jpg', mimeType: 'image/jpeg', clean: corpus.cleanJpeg },
  { filename: 'x.gif', mimeType: 'image/gif', clean: corpus.cleanGif },
  { filename: 'x.webp', mimeType: 'image/webp', clean: corpus.cleanWebp },
  { filename: 'x.avif', mimeType: 'image/avif', clean: corpus.cleanAvif },
  { filename: 'x.svg', mimeType: 'image/svg+xml', clean: corpus.cleanSvg },
  { filename: 'x.txt', mimeType: 'text/plain', clean: corpus.cleanText },
  { filename: 'x.json', mimeType: 'application/json', clean: corpus.cleanJson },
];

let files: Awaited<ReturnType<typeof corpus.uploadDir>>;
const clean = new Map<string, Buffer>();
beforeAll(async () => {
  files = await corpus.uploadDir();
  for (const d of DECLARED) clean.set(d.mimeType, await d.clean());
});
afterAll(() => files.remove());

/** Inspects `bytes` as `declared`: resolving is fine, so is a refusal with one of the guard's codes. */
async function resolvesOrRefuses(declared: (typeof DECLARED)[number], bytes: Uint8Array): Promise<void> {
  const file = await files.write('fuzz', Buffer.from(bytes));
  try {
    await inspectUpload(file, declared, DEFAULT_UPLOAD_POLICY);
  } catch (err) {
    if (!(err instanceof DomainError) || !GUARD_CODES.has(err.code)) throw err;
  }
}

const declaredArb = fc.constantFrom(...DECLARED);
/** Byte edits of a clean file: overwrites, then an optional cut, so walkers go deep before meeting garbage. */
const editsArb = fc.record({
  writes: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 12 }),
  cut: fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary: fc.nat(), weight: 1 }),
});

describe('inspectUpload on arbitrary bytes', () => {
  it('resolves or throws a guard error for random bytes under every declared type', async () => {
    await fc.assert(fc.asyncProperty(declaredArb, fc.uint8Array({ maxLength: 2048 }), resolvesOrRefuses), {
      numRuns: 200,
    });
  });

  it('resolves or throws a guard error for a known signature followed by random bytes', async () => {
    const arb = fc.tuple(declaredArb, fc.nat({ max: 64 }), fc.uint8Array({ maxLength: 2048 }));
    await fc.assert(
      fc.asyncProperty(arb, ([declared, keep, tail]) => {
        const head = clean.get(declared.mimeType)!.subarray(0, keep);
        return resolvesOrRefuses(declared, Buffer.concat([head, tail]));
      }),
      { numRuns: 200 },
    );
  });

  it('resolves or throws a guard error for clean files with a few bytes changed or cut', async () => {
    await fc.assert(
      fc.asyncProperty(declaredArb, editsArb, (declared, { writes, cut }) => {
        const bytes = Buffer.from(clean.get(declared.mimeType)!);
        for (const [at, value] of writes) bytes[at % bytes.length] = value;
        return resolvesOrRefuses(declared, cut === null ? bytes : bytes.subarray(0, cut % (bytes.length + 1)));
      }),
      { numRuns: 200 },
    );
  });
});
