/**
 * The studio's one way to the API. The access token lives in this object only (never in storage); the session
 * survives a reload through the refresh cookie (httpOnly, sent only to /api/v1/auth) with the `X-Svc-Refresh`
 * header the service demands of cookie refreshes. A 401 on a call made with a token refreshes once and retries once;
 * concurrent 401s share that one refresh (the refresh token rotates: two refreshes would spend it twice).
 */

export interface Profile {
  id: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

export interface Session {
  token: string;
  expiresIn: number;
  user: Profile;
}

export interface MfaChallenge {
  status: 'mfa_required';
  challengeToken: string;
  expiresIn: number;
}

export type LoginOutcome = { kind: 'signed-in'; user: Profile } | { kind: 'mfa'; challengeToken: string };

export interface Envelope<T, M = Record<string, unknown>> {
  data: T;
  meta?: M;
}

/** One error of the API's envelope. */
export interface ApiErrorEntry {
  code: string;
  message: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly errors: ApiErrorEntry[],
  ) {
    super(errors[0]?.message ?? `HTTP ${status}`);
  }
  get code(): string {
    return this.errors[0]?.code ?? `HTTP_${this.status}`;
  }
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface RequestOptions {
  site?: string | null;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** Extra request headers, e.g. `If-Match` on a write. */
  headers?: Record<string, string>;
}

export type SessionListener = (user: Profile | null) => void;

const API = '/api/v1';

export class ApiClient {
  #token: string | null = null;
  #user: Profile | null = null;
  #refreshing: Promise<boolean> | null = null;
  readonly #listeners = new Set<SessionListener>();

  constructor(private readonly fetchFn: FetchLike) {}

  get user(): Profile | null {
    return this.#user;
  }

  /** Whether an access token is held (in memory: a reload starts without one, then `restore()`s). */
  get signedIn(): boolean {
    return this.#token !== null;
  }

  subscribe(listener: SessionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Email and password: a session, or the TOTP challenge a TOTP-enrolled user owes first. */
  async login(email: string, password: string): Promise<LoginOutcome> {
    const data = await this.#authCall<Session | MfaChallenge>('/auth/login', { email, password });
    if ('status' in data && data.status === 'mfa_required') return { kind: 'mfa', challengeToken: data.challengeToken };
    this.#begin(data as Session);
    return { kind: 'signed-in', user: (data as Session).user };
  }

  /** The second step: a TOTP code, or a recovery code (spent by the service). */
  async verifyTotp(challengeToken: string, answer: { code: string } | { recoveryCode: string }): Promise<Profile> {
    const data = await this.#authCall<Session>('/auth/verify-totp', { challengeToken, ...answer });
    this.#begin(data);
    return data.user;
  }

  /** After a reload: a session from the refresh cookie, if there is one. False when there is none. */
  restore(): Promise<boolean> {
    return this.#refresh();
  }

  /** Ends the session at the service (the cookie's refresh family) and forgets the token, whatever the answer. */
  async logout(): Promise<void> {
    try {
      await this.fetchFn(`${API}/auth/logout`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: this.#headers({ refresh: true }),
      });
    } finally {
      this.#end();
    }
  }

  /** A call with the access token and the site; one refresh and one retry when the token has expired. */
  async request<T, M = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<Envelope<T, M>> {
    const res = await this.#send(method, path, options);
    return (res.status === 204 ? { data: null } : await res.json()) as Envelope<T, M>;
  }

  /** A GET of bytes (a file's asset) as a Blob, with the same token, site and refresh as every call. */
  async blob(path: string, options: Omit<RequestOptions, 'body'> = {}): Promise<Blob> {
    const headers = { accept: 'image/*, */*;q=0.8', ...options.headers };
    return (await this.#send('GET', path, { ...options, headers })).blob();
  }

  /** A `multipart/form-data` POST (the browser writes its boundary); the answer is the API's envelope. */
  upload<T, M = Record<string, unknown>>(
    path: string,
    form: FormData,
    options: Omit<RequestOptions, 'body'> = {},
  ): Promise<Envelope<T, M>> {
    return this.request<T, M>('POST', path, { ...options, body: form });
  }

  get<T, M = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<Envelope<T, M>> {
    return this.request<T, M>('GET', path, options);
  }

  /** Sends a call and answers its response when it is a success; its error envelope as an ApiError otherwise. */
  async #send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const form = options.body instanceof FormData;
    const send = () =>
      this.fetchFn(`${API}${path}${queryString(options.query)}`, {
        method,
        credentials: 'same-origin',
        headers: withExtra(
          this.#headers({ site: options.site, json: options.body !== undefined && !form }),
          options.headers,
        ),
        body: options.body === undefined ? undefined : form ? (options.body as FormData) : JSON.stringify(options.body),
      });
    const hadToken = this.#token !== null;
    let res = await send();
    if (res.status === 401 && hadToken) {
      if (!(await this.#refresh())) throw await errorOf(res);
      res = await send();
    }
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  /** One refresh at a time: callers arriving meanwhile wait for the same answer. */
  #refresh(): Promise<boolean> {
    this.#refreshing ??= (async () => {
      try {
        const res = await this.fetchFn(`${API}/auth/refresh`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: this.#headers({ refresh: true, withToken: false }),
        });
        if (!res.ok) {
          this.#end();
          return false;
        }
        this.#begin(((await res.json()) as Envelope<Session>).data);
        return true;
      } catch {
        this.#end();
        return false;
      } finally {
        this.#refreshing = null;
      }
    })();
    return this.#refreshing;
  }

  async #authCall<T>(path: string, body: unknown): Promise<T> {
    const res = await this.fetchFn(`${API}${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: this.#headers({ json: true, withToken: false }),
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await errorOf(res);
    return ((await res.json()) as Envelope<T>).data;
  }

  #headers(o: { site?: string | null; json?: boolean; refresh?: boolean; withToken?: boolean }): Headers {
    const h = new Headers({ accept: 'application/json' });
    if (o.json) h.set('content-type', 'application/json');
    if (o.refresh) h.set('x-svc-refresh', '1');
    if (o.site) h.set('x-svc-site', o.site);
    if (o.withToken !== false && this.#token) h.set('authorization', `Bearer ${this.#token}`);
    return h;
  }

  #begin(session: Session): void {
    const changed = this.#user?.id !== session.user.id;
    this.#token = session.token;
    this.#user = session.user;
    if (changed) for (const l of this.#listeners) l(session.user);
  }

  #end(): void {
    const had = this.#token !== null || this.#user !== null;
    this.#token = null;
    this.#user = null;
    if (had) for (const l of this.#listeners) l(null);
  }
}

function withExtra(h: Headers, extra: Record<string, string> | undefined): Headers {
  if (extra) for (const [k, v] of Object.entries(extra)) h.set(k, v);
  return h;
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** The API's error envelope as an ApiError; an answer that is not one still becomes an ApiError with its status. */
async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { errors?: ApiErrorEntry[] };
    if (Array.isArray(body.errors) && body.errors.length > 0) return new ApiError(res.status, body.errors);
  } catch {
    // not JSON: fall through
  }
  return new ApiError(res.status, [{ code: `HTTP_${res.status}`, message: res.statusText || `HTTP ${res.status}` }]);
}
