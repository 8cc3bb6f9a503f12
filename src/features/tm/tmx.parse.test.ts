import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_ENTRIES, parseTmx } from './tmx.parse.ts';

async function* chunks(s: string) {
  for (let i = 0; i < s.length; i += 64 * 1024) yield Buffer.from(s.slice(i, i + 64 * 1024));
}

const doc = (variants: number) =>
  `<?xml version="1.0" encoding="UTF-8"?><tmx version="1.4"><header srclang="en" datatype="plaintext"/><body>` +
  `<tu><tuv xml:lang="en"><seg>a</seg></tuv>${'<tuv xml:lang="de"><seg>b</seg></tuv>'.repeat(variants)}</tu>` +
  `</body></tmx>`;

describe('parseTmx', () => {
  it('refuses a unit giving more entries than one import records with 413, not a stack overflow', async () => {
    const err = await parseTmx(chunks(doc(200_000)), 64 * 1024 * 1024).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TMX_TOO_LARGE' });
  });

  it('takes a unit with many variants up to the cap', async () => {
    const out = await parseTmx(chunks(doc(MAX_IMPORT_ENTRIES)), 64 * 1024 * 1024);
    expect(out.entries.length).toBe(MAX_IMPORT_ENTRIES);
  });
});
