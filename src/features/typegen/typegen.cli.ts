import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generate, SINGLE_FILE, type GenerateOptions } from './generate.ts';
import { TypegenManifestBody } from './http/typegen.schemas.ts';
import type { TypegenManifest } from './typegen.manifest.ts';

export const TYPEGEN_USAGE = `usage: svc typegen --site <site> --out <path> [--format single|per-collection]
                   [--include a,b] [--exclude c,d] [--auth <token> (or SVC_TOKEN)]
                   [--url http://localhost:1989] [--branded | --branded=false | --no-branded]`;

export const DEFAULT_URL = 'http://localhost:1989';

/** What the command touches outside itself: the network, the environment, the working folder and its output. */
export interface CliIo {
  fetch: typeof globalThis.fetch;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  out(line: string): void;
  err(line: string): void;
}

interface Flags {
  site: string;
  out: string;
  url: string;
  auth: string | undefined;
  include: string | undefined;
  exclude: string | undefined;
  options: GenerateOptions;
}

class UsageError extends Error {}

/** `--branded` alone means true; `--no-branded` means false; `--branded=<v>` is read as given. */
function normalise(args: string[]): string[] {
  return args.map((a) => (a === '--branded' ? '--branded=true' : a === '--no-branded' ? '--branded=false' : a));
}

function flagsOf(args: string[], env: CliIo['env']): Flags {
  let values;
  try {
    ({ values } = parseArgs({
      args: normalise(args),
      strict: true,
      allowPositionals: false,
      options: {
        site: { type: 'string' },
        out: { type: 'string' },
        format: { type: 'string', default: 'single' },
        include: { type: 'string' },
        exclude: { type: 'string' },
        auth: { type: 'string' },
        url: { type: 'string', default: DEFAULT_URL },
        branded: { type: 'string', default: 'true' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!values.site) throw new UsageError('--site is required');
  if (!values.out) throw new UsageError('--out is required');
  const format = values.format;
  if (format !== 'single' && format !== 'per-collection')
    throw new UsageError(`--format must be single or per-collection, not ${JSON.stringify(format)}`);
  if (values.branded !== 'true' && values.branded !== 'false')
    throw new UsageError(`--branded must be true or false, not ${JSON.stringify(values.branded)}`);
  if (!URL.canParse(values.url!) || !/^https?:$/.test(new URL(values.url!).protocol))
    throw new UsageError(`--url must be an http(s) address, not ${JSON.stringify(values.url)}`);
  return {
    site: values.site,
    out: values.out,
    url: values.url!.replace(/\/+$/, ''),
    auth: values.auth ?? (env.SVC_TOKEN || undefined),
    include: values.include,
    exclude: values.exclude,
    options: { format, branded: values.branded === 'true' },
  };
}

/** The first error of an error envelope, on one line. */
async function failure(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  let detail = text.slice(0, 200);
  try {
    const e = (JSON.parse(text) as { errors?: { code?: string; message?: string; path?: string[] }[] }).errors?.[0];
    if (e) detail = `${e.code ?? ''}: ${e.message ?? ''}${e.path?.length ? ` (at ${e.path.join('.')})` : ''}`;
  } catch {
    // Not JSON: the text itself says what went wrong.
  }
  return `HTTP ${res.status} ${detail}`.replace(/\s+/g, ' ').trim();
}

async function fetchManifest(f: Flags, io: CliIo): Promise<TypegenManifest> {
  const query = new URLSearchParams();
  if (f.include !== undefined) query.set('include', f.include);
  if (f.exclude !== undefined) query.set('exclude', f.exclude);
  const qs = query.toString();
  const headers: Record<string, string> = { accept: 'application/json', 'x-svc-site': f.site };
  if (f.auth) headers.authorization = `Bearer ${f.auth}`;
  const res = await io.fetch(`${f.url}/api/v1/typegen/schema${qs ? `?${qs}` : ''}`, { headers });
  if (!res.ok) throw new Error(await failure(res));
  const body = (await res.json()) as { data?: unknown };
  const parsed = TypegenManifestBody.safeParse(body?.data);
  if (!parsed.success) throw new Error('the answer is not a type-generation manifest of version 2');
  return parsed.data;
}

/** Writes the generated files: the one file at `out` (single), or each under the folder `out` (per-collection). */
async function write(files: Map<string, string>, f: Flags, io: CliIo): Promise<string[]> {
  const out = resolve(io.cwd, f.out);
  const written: string[] = [];
  for (const [name, source] of files) {
    const path = f.options.format === 'single' && name === SINGLE_FILE ? out : join(out, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, source);
    written.push(path);
  }
  return written;
}

/**
 * `svc typegen`: fetches the site's manifest and writes its TypeScript types. Never starts the service or opens a
 * database. Exit codes: 0 written, 1 the request or the writing failed, 2 bad flags.
 */
export async function runTypegenCli(args: string[], io: CliIo): Promise<number> {
  let flags: Flags;
  try {
    flags = flagsOf(args, io.env);
  } catch (e) {
    io.err(`svc typegen: ${(e as Error).message}`);
    io.err(TYPEGEN_USAGE);
    return 2;
  }
  try {
    const manifest = await fetchManifest(flags, io);
    const written = await write(generate(manifest, flags.options), flags, io);
    const where =
      flags.options.format === 'single' ? written[0] : `${written.length} files under ${resolve(io.cwd, flags.out)}`;
    io.out(`wrote ${where} (${manifest.collections.length} collections)`);
    return 0;
  } catch (e) {
    const err = e as Error & { cause?: { message?: string } };
    const why = err.cause?.message ? `${err.message}: ${err.cause.message}` : err.message;
    io.err(`svc typegen: ${why}`.replace(/\s+/g, ' '));
    return 1;
  }
}
