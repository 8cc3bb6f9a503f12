import { dict, isForbiddenKey } from '../../kernel/safe/keys.ts';

/** Bounds of one template: its nesting, the path of a reference, and the size of what it renders. */
export const TEMPLATE_LIMITS = { depth: 32, segments: 16, outputBytes: 1_048_576 } as const;

/** What a template may read: `$trigger` (the run's input), `$last` (the previous step's output), and each step's output by node id. */
export type DataChain = ReadonlyMap<string, unknown>;

/** `{{ $trigger.a.b }}`, `{{ $last.y }}` or `{{ <nodeId>.z }}`: a head, then own keys or array indexes. */
export interface TemplatePath {
  head: string;
  segments: string[];
}

/** A template that cannot be rendered: the run's step fails (its reject edge), the save of an active flow is refused. */
export class TemplateError extends Error {
  constructor(
    readonly reason: 'invalid_reference' | 'too_deep' | 'too_large' | 'forbidden_key',
    message: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

const EXPR = /\{\{([^{}]*)\}\}/g;
const WHOLE = /^\{\{([^{}]*)\}\}$/;
const PATH = /^(\$trigger|\$last|[A-Za-z][A-Za-z0-9_-]{0,63})((?:\.[A-Za-z0-9_-]{1,128})*)$/;

/**
 * The path of one `{{ … }}` expression, or null when it is not one (no operators, no calls: nothing is evaluated).
 * Prototype names are no path: own properties only are read, so such a reference could only ever render null.
 */
export function parsePath(expr: string): TemplatePath | null {
  const m = PATH.exec(expr.trim());
  if (!m || isForbiddenKey(m[1]!)) return null;
  const segments = m[2] ? m[2].slice(1).split('.') : [];
  return segments.length > TEMPLATE_LIMITS.segments || segments.some(isForbiddenKey) ? null : { head: m[1]!, segments };
}

/** The value at a path: own properties and array indexes only, never anything inherited; undefined when absent. */
export function lookup(chain: DataChain, path: TemplatePath): unknown {
  let v: unknown = chain.get(path.head);
  for (const s of path.segments) {
    if (Array.isArray(v)) v = /^\d+$/.test(s) ? v[Number(s)] : undefined;
    else if (v !== null && typeof v === 'object' && Object.hasOwn(v, s)) v = (v as Record<string, unknown>)[s];
    else return undefined;
  }
  return v;
}

/** One `{{ … }}` of a template: where it stands, its text and its path (null when malformed). */
export interface TemplateRef {
  at: string[];
  expr: string;
  path: TemplatePath | null;
}

/** Every reference in a JSON value (strings at any depth), and its nesting; walked without recursion. */
export function templateRefs(value: unknown): { refs: TemplateRef[]; depth: number } {
  const refs: TemplateRef[] = [];
  let depth = 0;
  const stack: { v: unknown; at: string[] }[] = [{ v: value, at: [] }];
  while (stack.length) {
    const { v, at } = stack.pop()!;
    depth = Math.max(depth, at.length);
    if (typeof v === 'string') {
      for (const m of v.matchAll(EXPR)) refs.push({ at, expr: m[1]!.trim(), path: parsePath(m[1]!) });
    } else if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, at: [...at, String(i)] }));
    else if (v !== null && typeof v === 'object')
      for (const k of Object.keys(v)) stack.push({ v: (v as Record<string, unknown>)[k], at: [...at, k] });
  }
  return { refs, depth };
}

const text = (v: unknown): string =>
  v === undefined || v === null
    ? ''
    : typeof v === 'string'
      ? v
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

/**
 * Renders a JSON template against the data chain (the `transform` operation, and every templated option). A string
 * that is one whole `{{ path }}` becomes the value there, with its type (an object stays an object; absent becomes
 * null); `{{ path }}` inside other text is replaced by the value's text. Objects come out without a prototype, so a
 * key of the template is never a plain-object key. No expression is evaluated; depth and output size are capped.
 */
export function renderTemplate(template: unknown, chain: DataChain): unknown {
  let bytes = 0;
  const sizes = new Map<string, number>();
  const charge = (n: number) => {
    bytes += n;
    if (bytes > TEMPLATE_LIMITS.outputBytes)
      throw new TemplateError('too_large', `a template renders at most ${TEMPLATE_LIMITS.outputBytes} bytes`);
  };
  const resolve = (expr: string): unknown => {
    const path = parsePath(expr);
    if (!path) throw new TemplateError('invalid_reference', `{{ ${expr.trim().slice(0, 100)} }} is not a path`);
    return lookup(chain, path);
  };
  const render = (v: unknown, depth: number): unknown => {
    if (depth > TEMPLATE_LIMITS.depth)
      throw new TemplateError('too_deep', `a template nests at most ${TEMPLATE_LIMITS.depth} levels`);
    if (typeof v === 'string') {
      const whole = WHOLE.exec(v);
      if (whole) {
        const value = resolve(whole[1]!) ?? null;
        let size = sizes.get(whole[1]!);
        if (size === undefined) sizes.set(whole[1]!, (size = JSON.stringify(value).length));
        charge(size);
        return value;
      }
      // Charged piece by piece, so a string of many references to a large value stops before it is built.
      charge(v.length);
      return v.replace(EXPR, (_, expr: string) => {
        const piece = text(resolve(expr));
        charge(piece.length);
        return piece;
      });
    }
    if (Array.isArray(v)) return v.map((x) => render(x, depth + 1));
    if (v !== null && typeof v === 'object') {
      const out = dict<unknown>();
      for (const k of Object.keys(v)) {
        if (isForbiddenKey(k)) throw new TemplateError('forbidden_key', `a template may not use the key ${k}`);
        charge(k.length);
        out[k] = render((v as Record<string, unknown>)[k], depth + 1);
      }
      return out;
    }
    charge(8);
    return v;
  };
  return render(template, 0);
}
