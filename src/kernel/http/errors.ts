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

/** Every error code of the spec with its kind (the spec's table of codes). */
export const ERROR_KIND = {
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
  TFA_KEY_UNAVAILABLE: 'conflict',
  ENCRYPTION_KEY_MISSING: 'unavailable',
  ISSUER_ALREADY_EXISTS: 'conflict',
  UNSUPPORTED_MANIFEST_VERSION: 'unprocessable',
  DANGLING_REFERENCE: 'unprocessable',
  DUPLICATE_KEY: 'unprocessable',
  DESTRUCTIVE_BLOCKED: 'conflict',
  DEPENDENT_RECORDS_EXIST: 'conflict',
  FIELD_REQUIRED: 'conflict',
  INVALID_TARGET: 'unprocessable',
  EMPTY_RELEASE: 'unprocessable',
  ALREADY_PUBLISHED: 'conflict',
  RELEASE_IMMUTABLE: 'conflict',
  ITEM_NOT_FOUND: 'not_found',
  REVISION_STAGED: 'conflict',
  ITEM_DELETED: 'conflict',
  EDITORIAL_GATE_REQUIRED: 'conflict',
  GRAPH_DANGLING_EDGE: 'invalid',
  GRAPH_CYCLE: 'invalid',
  GRAPH_NO_ENTRY: 'invalid',
  GRAPH_UNKNOWN_OPERATION: 'invalid',
  CRON_INVALID: 'invalid',
  CRON_REQUIRED: 'invalid',
  WEBHOOK_NOT_CONFIGURED: 'unauthenticated',
  // A flow run tree's budget spent (README "Flows"): waiting does not refill it, so no 429.
  BUDGET_EXCEEDED: 'conflict',
  PUSH_NOT_CONFIGURED: 'not_found',
  INVALID_SIGNATURE: 'unauthenticated',
  SETUP_TOKEN_NOT_ISSUED: 'unavailable',
  // The upload guard's refusals (the spec leaves their codes open; README "Upload guard" lists them).
  UPLOAD_TOO_LARGE: 'too_large',
  UPLOAD_TYPE_NOT_ALLOWED: 'unsupported_media',
  UPLOAD_TYPE_MISMATCH: 'unsupported_media',
  UPLOAD_EXECUTABLE: 'unprocessable',
  UPLOAD_ACTIVE_CONTENT: 'unprocessable',
  UPLOAD_EMBEDDED_PAYLOAD: 'unprocessable',
  UPLOAD_MALFORMED: 'unprocessable',
  UPLOAD_DIMENSIONS_EXCEEDED: 'unprocessable',
  TRANSFORM_UNSUPPORTED: 'unprocessable',
  TRANSFORM_SOURCE_TOO_LARGE: 'unprocessable',
  // Translation memory (the spec leaves these open; README "Translation memory" lists them).
  TRANSLATION_PROVIDER_UNAVAILABLE: 'unavailable',
  TRANSLATION_PROVIDER_FAILED: 'bad_gateway',
  TMX_INVALID: 'invalid',
  TMX_TOO_LARGE: 'too_large',
  // Git integration (the spec leaves these open; README "Git integration" lists them).
  GIT_PROVIDER_FAILED: 'bad_gateway',
  GIT_TOKEN_MISSING: 'conflict',
  GIT_REF_NOT_FOUND: 'unprocessable',
  GIT_INTENTS_INVALID: 'unprocessable',
  GIT_OAUTH_NOT_CONFIGURED: 'unavailable',
  GIT_OAUTH_STATE_INVALID: 'invalid',
  // A site's CORS origins (README "Calling from a browser"): a pattern that is not an origin or a subdomain wildcard.
  CORS_ORIGIN_INVALID: 'invalid',
  INTERNAL: 'internal',
} as const satisfies Record<string, ErrorKind>;

/** Each code's status, derived from its kind (the OpenAPI document lists the codes a status can carry). */
export const ERROR_STATUS = Object.fromEntries(
  Object.entries(ERROR_KIND).map(([code, kind]) => [code, own<number>(KIND_STATUS, kind)!]),
) as { readonly [C in keyof typeof ERROR_KIND]: number };

export type ErrorCode = keyof typeof ERROR_KIND;

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
    const kind = options.kind ?? own<ErrorKind>(ERROR_KIND, code) ?? 'internal';
    this.status = own<number>(KIND_STATUS, kind) ?? 500;
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
  return class extends DomainError {
    static readonly code = code;
    static readonly kind = kind;
    constructor(details: D) {
      super(code, message(details), { ...options(details), kind });
    }
  };
}
