/** One finding: the request that produced it and why it is wrong. */
export interface Failure {
  problem: string;
  method: string;
  template: string;
  caller: string;
  kind: string;
  status: number;
  url: string;
  snippet: string;
}

const watched = [Object.prototype, Array.prototype, Function.prototype] as const;
const names = ['Object.prototype', 'Array.prototype', 'Function.prototype'];
const baseline = watched.map((p) => new Set(Reflect.ownKeys(p)));

/** Keys a request left on a prototype, removed again so the next request starts clean. */
export function prototypeChanges(): string[] {
  const out: string[] = [];
  watched.forEach((proto, i) => {
    for (const key of Reflect.ownKeys(proto)) {
      if (baseline[i]!.has(key)) continue;
      out.push(`${names[i]}.${String(key)}`);
      delete (proto as unknown as Record<PropertyKey, unknown>)[key];
    }
  });
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Why an answer under /api/v1 is not the spec's envelope, or null when it is. A successful download (sent as an
 * attachment: a file, a personal-data export) is the spec's exception.
 */
export function envelopeProblem(res: {
  statusCode: number;
  body: string;
  contentType: string;
  disposition?: string;
}): string | null {
  if (res.statusCode === 0) return 'no HTTP answer';
  if (res.statusCode < 300 && res.disposition?.startsWith('attachment')) return null;
  if ((res.statusCode === 204 || res.statusCode === 304) && res.body === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `not JSON (${res.contentType})`;
  }
  if (!isObject(body)) return 'not an object';
  if (res.statusCode < 400) return Object.hasOwn(body, 'data') ? null : 'success without data';
  const errors = body.errors;
  if (!Array.isArray(errors) || errors.length === 0) return 'failure without errors[]';
  const bad = errors.find(
    (e) =>
      !isObject(e) ||
      typeof e.code !== 'string' ||
      typeof e.message !== 'string' ||
      !Array.isArray(e.path) ||
      !isObject(e.extensions),
  );
  return bad === undefined
    ? null
    : `error object not {code,message,path,extensions}: ${JSON.stringify(bad).slice(0, 200)}`;
}

/** The secrets of the other site found in an answer, ignoring those the request itself carried (echoes). */
export function leaked(body: string, secrets: readonly string[], request: string): string[] {
  return secrets.filter((s) => body.includes(s) && !request.includes(s) && !request.includes(encodeURIComponent(s)));
}

/** All findings, grouped by problem and operation, each group with its callers, inputs and one example. */
export function report(failures: readonly Failure[]): string {
  const groups = new Map<string, Failure[]>();
  for (const f of failures) {
    const key = `${f.problem} | ${f.method} ${f.template} | ${f.status}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines = [`${failures.length} failures in ${groups.size} groups`];
  // A request that breaks a site makes later, valid requests fail too: the first findings name the cause.
  lines.push('first, in order:');
  for (const f of failures.slice(0, 3))
    lines.push(`  ${f.problem} ${f.caller} ${f.kind}: ${f.method} ${f.url.slice(0, 160)} → ${f.status}`);
  lines.push('by group:');
  for (const [key, fs] of [...groups].sort(([x], [y]) => x.localeCompare(y))) {
    const callers = [...new Set(fs.map((f) => f.caller))].join(',');
    const kinds = [...new Set(fs.map((f) => f.kind))].join(',');
    const ex = fs[0]!;
    lines.push(`- ${key} | callers: ${callers} | inputs: ${kinds}`);
    lines.push(`    e.g. ${ex.method} ${ex.url.slice(0, 160)} → ${ex.snippet.slice(0, 240)}`);
  }
  return lines.join('\n');
}
