/**
 * Origin patterns of the CORS lists (SVC_CORS_ORIGINS, a site's `cors.origins`): an exact origin
 * (`https://app.example.com`, `http://127.0.0.1:5173`) or a wildcard over the subdomains of one domain
 * (`https://*.example.com`, which matches `https://a.example.com` and `https://a.b.example.com`, not
 * `https://example.com`). `*` alone is no pattern: every origin is what public delivery already answers.
 */

/** Why a pattern is not one, or null. */
export function originPatternProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > 300) return 'an origin pattern is 1 to 300 characters';
  if (pattern === '*') return '* is not an origin pattern: list the origins (public delivery answers every origin)';
  const wild = /^(https?):\/\/\*\.(.+)$/.exec(pattern);
  if (wild) {
    const rest = canonical(`${wild[1]!}://${wild[2]!}`);
    if (!rest || rest !== `${wild[1]!}://${wild[2]!}`)
      return 'a wildcard pattern is scheme://*.domain[:port] in lower case, with no path';
    if (!wild[2]!.replace(/:\d+$/, '').includes('.')) return 'a wildcard covers the subdomains of a domain with a dot';
    return null;
  }
  if (pattern.includes('*')) return 'a wildcard stands only for the subdomains: scheme://*.domain';
  const c = canonical(pattern);
  if (!c) return 'an origin is scheme://host[:port] (http or https, no path)';
  if (c !== pattern) return `an origin is written as browsers send it: ${c}`;
  return null;
}

/** `scheme://host[:port]` as browsers send it, or null when `s` is not a bare http(s) origin. */
function canonical(s: string): string | null {
  if (!URL.canParse(s)) return null;
  const u = new URL(s);
  const bare = !u.username && !u.password && u.pathname === '/' && !u.search && !u.hash && !s.endsWith('/');
  return bare && (u.protocol === 'https:' || u.protocol === 'http:') ? u.origin : null;
}

/** A set of origin patterns, matched against an Origin header value. */
export class OriginList {
  private readonly exact = new Set<string>();
  /** Wildcards as [scheme://, .domain[:port]]. */
  private readonly wild: [string, string][] = [];

  constructor(patterns: Iterable<string> = []) {
    for (const p of patterns) this.add(p);
  }

  /** Adds a valid pattern; an invalid one (refused where it was set) is ignored. */
  add(pattern: string): void {
    if (originPatternProblem(pattern)) return;
    const i = pattern.indexOf('://*.');
    if (i < 0) this.exact.add(pattern);
    else this.wild.push([pattern.slice(0, i + 3), pattern.slice(i + 4)]);
  }

  get size(): number {
    return this.exact.size + this.wild.length;
  }

  allows(origin: string): boolean {
    if (this.exact.has(origin)) return true;
    for (const [scheme, suffix] of this.wild) {
      if (!origin.startsWith(scheme)) continue;
      const host = origin.slice(scheme.length);
      // A subdomain: at least one label before the suffix, and the port (or its absence) the same.
      if (
        host.length > suffix.length &&
        host.endsWith(suffix) &&
        /^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host.slice(0, -suffix.length))
      )
        return true;
    }
    return false;
  }
}

/** Parses SVC_CORS_ORIGINS: a comma list of patterns; the problems name each bad one. */
export function parseOriginList(value: string | undefined): { patterns: string[]; problems: string[] } {
  const patterns = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const problems = patterns.flatMap((p) => {
    const problem = originPatternProblem(p);
    return problem ? [`${JSON.stringify(p.slice(0, 100))}: ${problem}`] : [];
  });
  return { patterns, problems };
}
