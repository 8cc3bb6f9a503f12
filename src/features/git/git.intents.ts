import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { inspectJson } from '../../platform/http/input-guard.ts';
import { dictFrom } from '../../kernel/safe/keys.ts';
import { LayoutConfig, Slug } from '../pages/index.ts';

/** The files of a sync at most, each file's size and the intents of all of them. */
export const INTENT_LIMITS = { files: 200, fileBytes: 256 * 1024, intents: 2000 } as const;

/** An item as the repository declares it: its collection, its id, and the values it should have. */
export interface ItemIntent {
  path: string;
  collection: string;
  id: string | number;
  /** Prototype-free: the keys are the file's. */
  values: Record<string, unknown>;
}

/**
 * A page as the repository declares it (by slug: a page's id is the service's). It is tracked, in content intents
 * and provenance, under the collection name `@page` (no collection can be named so) and its slug.
 */
export interface PageIntent {
  path: string;
  slug: string;
  values: { title: string; layoutConfig: LayoutConfig | null };
}
export const PAGE_INTENTS = '@page';

/** A file that could not be read as intents, and why. */
export interface IntentProblem {
  path: string;
  problem: string;
}

/** Intent files are JSON or YAML; anything else under the folder (a README) is not one. */
export const isIntentFile = (path: string) => /\.(json|ya?ml)$/i.test(path);

/**
 * The configuration manifest (svc.config@v1, as `/config/export` writes it) is the file `svc.config.json`,
 * `.yaml` or `.yml` at the root of the intents folder; it may be larger than an intent file (GitHub's contents API
 * serves at most 1 MiB).
 */
export const MANIFEST_FILE_BYTES = 1024 * 1024;
export const isManifestFile = (path: string, dir: string) =>
  /^svc\.config\.(json|ya?ml)$/i.test(dir === '' ? path : path.slice(dir.length + 1)) &&
  (dir === '' ? !path.includes('/') : path.startsWith(`${dir}/`) && !path.slice(dir.length + 1).includes('/'));

/**
 * A manifest file's value (pure), checked for prototype keys, NUL characters, non-finite numbers and depth; its
 * shape is the configuration import's to read (422 MANIFEST_INVALID, each problem with its path).
 */
export function parseManifestFile(path: string, text: string): { manifest: unknown } | IntentProblem {
  if (Buffer.byteLength(text) > MANIFEST_FILE_BYTES)
    return { path, problem: `larger than ${String(MANIFEST_FILE_BYTES)} bytes` };
  const decoded = decode(path, text);
  if ('problem' in decoded) return { path, problem: decoded.problem };
  const unsafe = inspectJson(decoded.value, []);
  if (unsafe) return { path, problem: `${unsafe.path.join('.') || '(root)'}: ${unsafe.message}` };
  return { manifest: decoded.value };
}

const Intent = z
  .object({
    collection: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a collection name'),
    id: z.union([z.string().min(1).max(200), z.number().int().safe()]),
    values: z.record(z.string(), z.unknown()),
  })
  .strict();
const PageIntentShape = z
  .object({
    page: z
      .object({ slug: Slug, title: z.string().min(1).max(300), layoutConfig: LayoutConfig.nullable().optional() })
      .strict(),
  })
  .strict();
const AnyIntent = z.union([Intent, PageIntentShape]);
const IntentFile = z.union([AnyIntent, z.array(AnyIntent).max(INTENT_LIMITS.intents)]);

/** The value a file holds, or why it holds none. */
function decode(path: string, text: string): { value: unknown } | { problem: string } {
  try {
    if (/\.json$/i.test(path)) return { value: JSON.parse(text) as unknown };
    // YAML 1.2 core schema: no custom tags, a bounded number of aliases (no expansion bombs), unique keys.
    return { value: parseYaml(text, { maxAliasCount: 100, uniqueKeys: true, customTags: [] }) as unknown };
  } catch (err) {
    return {
      problem: `not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`,
    };
  }
}

/**
 * A file's intents (pure): one intent, `{ collection, id, values }` or `{ page: { slug, title, layoutConfig } }`, or
 * a list of them. Keys that name the prototype, NUL characters, non-finite numbers and excessive depth are refused
 * before the shape is read.
 */
export function parseIntentFile(
  path: string,
  text: string,
): { intents: ItemIntent[]; pages: PageIntent[] } | IntentProblem {
  if (Buffer.byteLength(text) > INTENT_LIMITS.fileBytes)
    return { path, problem: `larger than ${String(INTENT_LIMITS.fileBytes)} bytes` };
  const decoded = decode(path, text);
  if ('problem' in decoded) return { path, problem: decoded.problem };
  const unsafe = inspectJson(decoded.value, []);
  if (unsafe) return { path, problem: `${unsafe.path.join('.') || '(root)'}: ${unsafe.message}` };
  const parsed = IntentFile.safeParse(decoded.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { path, problem: `${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  const list = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
  const intents: ItemIntent[] = [];
  const pages: PageIntent[] = [];
  for (const i of list)
    if ('page' in i)
      pages.push({
        path,
        slug: i.page.slug,
        values: { title: i.page.title, layoutConfig: i.page.layoutConfig ?? null },
      });
    else
      intents.push({
        path,
        collection: i.collection,
        id: i.id,
        values: dictFrom(Object.entries(i.values).filter(([k]) => k !== 'id')),
      });
  return { intents, pages };
}

/** A stable text of a value, for comparing an intent's value with the live one (object keys in order). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The intent's fields whose values differ from the live item's or page's (`live` null: it is missing). */
export function differingFields(
  intent: { values: Record<string, unknown> },
  live: Record<string, unknown> | null,
): string[] {
  if (!live) return Object.keys(intent.values);
  return Object.keys(intent.values).filter(
    (f) => canonical(intent.values[f]) !== canonical(Object.hasOwn(live, f) ? live[f] : null),
  );
}
