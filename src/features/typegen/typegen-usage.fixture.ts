import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * Code written against the generated types of the typegen tests' schema: `GOOD_USAGE` must type-check; each line of
 * `BAD_USAGE` marked `// expect TS<code>` must fail with exactly those codes, `// branded TS<code>` only when key
 * types are branded, and no other line may fail.
 */
export const GOOD_USAGE = (from: string) => `
import type { Articles, ArticlesId, Authors, AuthorsId, Counters, CountersId, ItemRef, Schema, Tags, TagsId } from '${from}';
import type { CollectionName, GeoJSONGeometry, FilesId } from '${from}';
declare const a: Articles;
declare const au: Authors;
const title: string = a.title;
const text: string | null | undefined = a.f_text;
const n: number | null | undefined = a.f_integer;
const big: number | null | undefined = a.f_biginteger;
const dec: number | null | undefined = a.f_decimal;
const yes: boolean | null | undefined = a.f_boolean;
const anything: unknown = a.f_json;
const day: string | null | undefined = a.f_date;
const geo: GeoJSONGeometry | null | undefined = a.f_geometry;
if (geo && geo.type === 'Point') void (geo.coordinates satisfies number[]);
const tone: 'calm' | 'loud' | "it's \\\\ \\"odd\\"" | null | undefined = a.tone;
const secret: string | '***' | null | undefined = a.secret;
const strict: number | undefined = a.strict_count;
const id: ArticlesId = a.id;
const author: AuthorsId | null | undefined = a.author;
const cover: FilesId | null | undefined = a.cover;
const tags: TagsId[] | undefined = a.tags;
const written: ArticlesId[] | undefined = au.articles;
const blocks: ItemRef[] | null | undefined = a.blocks;
if (blocks?.[0]?.collection === 'authors') void (blocks[0].item satisfies AuthorsId);
const created: string = a.created_at;
const deleted: string | null | undefined = a.deleted_at;
const status: string | null | undefined = a.status;
const sort: number | null | undefined = a.sort;
const edited: Articles = { ...a, title: 'New', tone: 'loud', status: null, f_text: null, secret: '***' };
edited.title = 'Newer';
const item: Schema['articles'] = edited;
const names: CollectionName[] = ['articles', 'authors', 'a_b', 'a__b', 'schema', 'articles_id', 'files'];
declare const counter: Counters;
const counterId: CountersId = counter.id;
declare const tag: Tags;
const tagId: TagsId = tag.id;
export { title, text, n, big, dec, yes, anything, day, tone, secret, strict, id, author, cover, tags, written };
export { created, deleted, status, sort, item, names, counterId, tagId };
`;

export const BAD_USAGE = (from: string) => `
import type { Articles, ArticlesId, AuthorsId, ItemRef, Schema } from '${from}';
declare const a: Articles;
declare const authorId: AuthorsId;
const n: Articles = { ...a, title: 42 }; // expect TS2322
const wrongEnum: Articles['tone'] = 'angry'; // expect TS2322
a.locked = 'x'; // expect TS2540
a.created_at = '2024-01-01T00:00:00Z'; // expect TS2540
a.id = a.id; // expect TS2540
const noNull: Articles['title'] = null; // expect TS2322
const strictNull: Articles['strict_count'] = null; // expect TS2322
const mixed: ArticlesId = authorId; // branded TS2322
const plain: ArticlesId = 'abc'; // branded TS2322
const ref: ItemRef = { collection: 'authors', item: a.id }; // branded TS2322
const unknownCollection: Schema['nope'] = a; // expect TS2339
const missing: Articles = { id: a.id }; // expect TS2739
export { n, wrongEnum, noNull, strictNull, mixed, plain, ref, unknownCollection, missing };
`;

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  module: ts.ModuleKind.ESNext,
  target: ts.ScriptTarget.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  skipLibCheck: true,
  types: [],
};

export interface Compiled {
  /** Messages of a file's diagnostics (`line: TS<code> message`). */
  diagnostics(file: string): string[];
  raw(file: string): readonly ts.Diagnostic[];
}

/** Writes the generated files under `gen/` and the usage files beside it in a temporary folder, and type-checks. */
export async function compile(generated: Map<string, string>, usage: Record<string, string>): Promise<Compiled> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-typegen-'));
  try {
    const files = new Map<string, string>();
    for (const [name, source] of generated) files.set(join(dir, 'gen', name), source);
    for (const [name, source] of Object.entries(usage)) files.set(join(dir, name), source);
    for (const [path, source] of files) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, source);
    }
    const program = ts.createProgram([...files.keys()], OPTIONS);
    const all = ts.getPreEmitDiagnostics(program);
    const raw = (file: string) => all.filter((d) => d.file?.fileName === join(dir, file));
    return {
      raw,
      diagnostics: (file) =>
        raw(file).map((d) => {
          const line = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
          return `${line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
        }),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Line number (1-based) → sorted diagnostic codes. */
export function diagnosticsByLine(diagnostics: readonly ts.Diagnostic[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const d of diagnostics) {
    const line = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
    out.set(line, [...(out.get(line) ?? []), `TS${d.code}`].sort());
  }
  return out;
}

/** The codes the markers of a usage file expect, by line. */
export function expectedByLine(source: string, branded: boolean): Map<number, string[]> {
  const out = new Map<number, string[]>();
  source.split('\n').forEach((text, i) => {
    const m = /\/\/ (expect|branded) (TS\d+)$/.exec(text);
    if (m && (m[1] === 'expect' || branded)) out.set(i + 1, [m[2]!]);
  });
  return out;
}
