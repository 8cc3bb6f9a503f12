import { own } from '../safe/keys.ts';

/** Every error code of the spec, with its HTTP status. One place maps codes to statuses. */
export const ERROR_STATUS = {
  PERMISSION_DENIED: 403,
  RECORD_NOT_FOUND: 404,
  NOT_FOUND: 404,
  VALIDATION_FAILED: 400,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  RATE_LIMIT_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  SITE_NOT_FOUND: 404,
  TOKEN_EXPIRED: 401,
  UNAUTHENTICATED: 401,
  MFA_REQUIRED: 401,
  SKILL_DENIED: 403,
  HITL_REQUIRED: 202,
  ENCRYPTION_NOT_CONFIGURED: 503,
  TFA_KEY_UNAVAILABLE: 409,
  ENCRYPTION_KEY_MISSING: 503,
  ISSUER_ALREADY_EXISTS: 409,
  UNSUPPORTED_MANIFEST_VERSION: 422,
  DANGLING_REFERENCE: 422,
  DUPLICATE_KEY: 422,
  DESTRUCTIVE_BLOCKED: 409,
  DEPENDENT_RECORDS_EXIST: 409,
  FIELD_REQUIRED: 409,
  INVALID_TARGET: 422,
  EMPTY_RELEASE: 422,
  ALREADY_PUBLISHED: 409,
  RELEASE_IMMUTABLE: 409,
  ITEM_NOT_FOUND: 404,
  REVISION_STAGED: 409,
  ITEM_DELETED: 409,
  EDITORIAL_GATE_REQUIRED: 409,
  GRAPH_DANGLING_EDGE: 400,
  GRAPH_CYCLE: 400,
  GRAPH_NO_ENTRY: 400,
  GRAPH_UNKNOWN_OPERATION: 400,
  CRON_INVALID: 400,
  CRON_REQUIRED: 400,
  WEBHOOK_NOT_CONFIGURED: 401,
  PUSH_NOT_CONFIGURED: 404,
  INVALID_SIGNATURE: 401,
  SETUP_TOKEN_NOT_ISSUED: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorObject {
  code: ErrorCode;
  message: string;
  path: string[];
  extensions: Record<string, unknown>;
}

/** An expected failure: carries the spec's code, and optionally an override status (e.g. 422 on releases). */
export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: {
      path?: string[];
      extensions?: Record<string, unknown>;
      status?: number;
      errors?: ErrorObject[];
      /** Top-level keys of the error body beside `errors` (e.g. `dependents` of DEPENDENT_RECORDS_EXIST). */
      body?: Record<string, unknown>;
      /** Response headers of the failure (e.g. Retry-After of RATE_LIMITED). */
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = options.status ?? own<number>(ERROR_STATUS, code) ?? 500;
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

export const notFound = (what: string, id: string) => new DomainError('NOT_FOUND', `${what} ${id} not found`);
export const forbidden = (message = 'you are not allowed to do this') => new DomainError('PERMISSION_DENIED', message);
export const unauthenticated = (message = 'authentication required') => new DomainError('UNAUTHENTICATED', message);
export const conflict = (message: string, extensions: Record<string, unknown> = {}) =>
  new DomainError('CONFLICT', message, { extensions });
export const invalid = (message: string, path: string[] = [], status?: number) =>
  new DomainError('VALIDATION_FAILED', message, { path, status });
