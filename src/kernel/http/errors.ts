import { own } from '../safe/keys.ts';

/**
 * What kind of failure an error is; its HTTP status follows from the kind alone (KIND_STATUS). Slices declare their
 * errors with a kind (defineError); the few statuses the spec fixes otherwise are kinds of their own.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'too_large'
  | 'unsupported_media'
  | 'accepted'
  | 'rate_limited'
  | 'unavailable'
  | 'bad_gateway'
  | 'internal';

/** The one map from kinds to statuses. */
export const KIND_STATUS: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  too_large: 413,
  unsupported_media: 415,
  accepted: 202,
  rate_limited: 429,
  unavailable: 503,
  bad_gateway: 502,
  internal: 500,
};

/** The status of a kind. */
export const kindStatus = (kind: ErrorKind): number => own<number>(KIND_STATUS, kind) ?? 500;

/**
 * The kernel's codes: the spec's cross-cutting failures (any slice may answer them) and the kernel's own. A slice's
 * codes are its own: it declares each with `defineError` in `<area>.errors.ts`, which enters it here.
 */
export const KERNEL_CODES = {
  PERMISSION_DENIED: 'forbidden',
  RECORD_NOT_FOUND: 'not_found',
  NOT_FOUND: 'not_found',
  VALIDATION_FAILED: 'invalid',
  CONFLICT: 'conflict',
  RATE_LIMITED: 'rate_limited',
  RATE_LIMIT_UNAVAILABLE: 'unavailable',
  SERVICE_UNAVAILABLE: 'unavailable',
  SITE_NOT_FOUND: 'not_found',
  TOKEN_EXPIRED: 'unauthenticated',
  UNAUTHENTICATED: 'unauthenticated',
  MFA_REQUIRED: 'unauthenticated',
  SKILL_DENIED: 'forbidden',
  HITL_REQUIRED: 'accepted',
  ENCRYPTION_NOT_CONFIGURED: 'unavailable',
  ENCRYPTION_KEY_MISSING: 'unavailable',
  INTERNAL: 'internal',
} as const satisfies Record<string, ErrorKind>;

/** An error code: the kernel's, or one a slice declared. */
export type ErrorCode = string;

/** Each declared code with the kind its status is listed under (the kernel's kind for the kernel's codes). */
const catalogue = new Map<string, ErrorKind>(Object.entries(KERNEL_CODES));
/** Slice codes declared again with another kind: a code means one status (checked by a unit test). */
const redeclared = new Set<string>();

function declareCode(code: string, kind: ErrorKind): void {
  const known = catalogue.get(code);
  if (known !== undefined) {
    if (known !== kind && !Object.hasOwn(KERNEL_CODES, code)) redeclared.add(code);
    return;
  }
  catalogue.set(code, kind);
}

/**
 * Codes a slice answers inside a failure's body rather than as a thrown error (the planner's list of problems):
 * declared once in `<area>.errors.ts`, so the OpenAPI document lists them under their status.
 */
export function declareCodes(codes: Readonly<Record<string, ErrorKind>>): void {
  for (const [code, kind] of Object.entries(codes)) declareCode(code, kind);
}

/**
 * Every declared code with its kind. Slices declare their codes as their modules load, before any route registers,
 * so the OpenAPI envelopes (built as routes register) list them all.
 */
export function errorCatalogue(): { codes: ReadonlyMap<string, ErrorKind>; redeclared: ReadonlySet<string> } {
  return { codes: catalogue, redeclared };
}

export interface ErrorObject {
  code: ErrorCode;
  message: string;
  path: string[];
  extensions: Record<string, unknown>;
}

/**
 * An error without a stack trace: capturing one walks the stack on every construction, a measurable share of a 4xx
 * answer (7 % of a cached 404's CPU), and an expected failure's stack is never shown or logged.
 */
class ExpectedFailure extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** An expected failure: carries the spec's code; its kind (the catalogue's, or the slice's) decides the status. */
export class DomainError extends ExpectedFailure {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: {
      path?: string[];
      extensions?: Record<string, unknown>;
      errors?: ErrorObject[];
      /** Top-level keys of the error body beside `errors` (e.g. `dependents` of DEPENDENT_RECORDS_EXIST). */
      body?: Record<string, unknown>;
      /** Response headers of the failure (e.g. Retry-After of RATE_LIMITED). */
      headers?: Record<string, string>;
      /** The kind, when a slice declares this code as another kind than the catalogue (422 on releases). */
      kind?: ErrorKind;
    } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    const kind = options.kind ?? catalogue.get(code) ?? 'internal';
    this.status = kindStatus(kind);
  }

  toErrorObjects(): ErrorObject[] {
    return (
      this.options.errors ?? [
        {
          code: this.code,
          message: this.message,
          path: this.options.path ?? [],
          extensions: this.options.extensions ?? {},
        },
      ]
    );
  }
}

type ErrorOptions = ConstructorParameters<typeof DomainError>[2];

/**
 * A slice's error: its spec code, its kind (which decides the status) and its message from the details, so a slice
 * declares each failure once in `<area>.errors.ts` and throws `new AlreadyPublished({ releaseId })`.
 */
export function defineError<D = void>(
  code: ErrorCode,
  kind: ErrorKind,
  message: (details: D) => string,
  options: (details: D) => Omit<NonNullable<ErrorOptions>, 'kind'> = () => ({}),
) {
  declareCode(code, kind);
  return class extends DomainError {
    static readonly code = code;
    static readonly kind = kind;
    constructor(details: D) {
      super(code, message(details), { ...options(details), kind });
    }
  };
}
