import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { isPublicAddress } from './address-policy.ts';

export interface OutboundOptions {
  /** Let the request reach private, loopback and link-local addresses (development peers). */
  allowPrivate?: boolean;
  /** Refuse plain http (production). */
  httpsOnly?: boolean;
  /** Whole exchange, connect included. */
  timeoutMs?: number;
  /** Largest response body; a larger one fails the request. */
  maxBytes?: number;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Certificate authorities (PEM) trusted for this request instead of the system's (a private push service). */
  ca?: string | Buffer;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Why an outbound request was refused or failed; `reason` is stable for callers and tests. */
export class OutboundError extends Error {
  constructor(
    readonly reason:
      'bad_url' | 'insecure' | 'private_address' | 'unresolved' | 'redirect' | 'timeout' | 'too_large' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** The URL parsed and checked for scheme, without resolving it. */
export function checkUrl(raw: string, opts: Pick<OutboundOptions, 'httpsOnly'> = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('bad_url', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundError('bad_url', 'only http(s) URLs');
  if (opts.httpsOnly && url.protocol !== 'https:') throw new OutboundError('insecure', 'only https URLs');
  if (url.username || url.password) throw new OutboundError('bad_url', 'URLs may not carry credentials');
  return url;
}

/**
 * The addresses the URL's host resolves to, refused when any of them is not public (unless allowed): the
 * check runs on what DNS answers now, so a name pointing at 127.0.0.1 or 169.254.169.254 is caught.
 */
export async function resolvePublic(url: URL, allowPrivate = false): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let found: { address: string; family: number }[];
  try {
    found = await dns.lookup(host, { all: true, verbatim: true });
  } catch {
    throw new OutboundError('unresolved', `${host} does not resolve`);
  }
  if (!found.length) throw new OutboundError('unresolved', `${host} does not resolve`);
  if (!allowPrivate && found.some((a) => !isPublicAddress(a.address)))
    throw new OutboundError('private_address', `${host} resolves to a private, loopback or link-local address`);
  return found[0]!;
}

/**
 * The one way the service calls other servers (issuers now; webhooks and flows later): DNS is resolved and
 * checked first, the connection goes to exactly that address (no second lookup an attacker's DNS could
 * answer differently), redirects are never followed, and time and size are bounded.
 */
export async function outboundRequest(raw: string, opts: OutboundOptions = {}): Promise<OutboundResponse> {
  const res = await outboundStream(raw, { ...opts, maxBytes: opts.maxBytes ?? 1_048_576 });
  const chunks: Buffer[] = [];
  try {
    for await (const c of res.body) chunks.push(c as Buffer);
  } catch (err) {
    throw wrap(err as Error);
  }
  return { status: res.status, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') };
}

/** An answer whose body is read as it arrives (a file being imported), never held whole. */
export interface OutboundStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body; it fails with an OutboundError past `maxBytes` (counted on the bytes), the timeout or a break. */
  body: Readable;
}

/**
 * `outboundRequest` with the body as a stream: the same address rules, no redirects, and the timeout covering the
 * whole exchange including the body; `maxBytes` (default 1 MiB) is counted on the bytes as they arrive. The
 * caller reads or destroys the body.
 */
export async function outboundStream(raw: string, opts: OutboundOptions = {}): Promise<OutboundStream> {
  const url = checkUrl(raw, opts);
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const maxBytes = opts.maxBytes ?? 1_048_576;
  const deadline = AbortSignal.timeout(timeoutMs);
  const pinned = await Promise.race([
    resolvePublic(url, opts.allowPrivate),
    new Promise<never>((_, reject) =>
      deadline.addEventListener('abort', () => reject(new OutboundError('timeout', 'timed out resolving'))),
    ),
  ]);
  const lookup: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: (typeof pinned)[]) => void)(null, [pinned]);
    else cb(null, pinned.address, pinned.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<OutboundStream>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: { 'user-agent': 'content-service', ...opts.headers },
        lookup,
        signal: deadline,
        ...(opts.ca && url.protocol === 'https:' ? { ca: opts.ca } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          return reject(new OutboundError('redirect', `answered ${status}: redirects are not followed`));
        }
        // The body fails only with an OutboundError: past the cap, on the timeout, or when the connection breaks.
        const body = new PassThrough();
        // It may fail before its reader is attached; the reader still gets the error (the stream keeps it).
        body.on('error', () => undefined);
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes)
            body.destroy(new OutboundError('too_large', `the answer is larger than ${maxBytes} bytes`));
          else if (!body.write(chunk)) res.pause();
        });
        body.on('drain', () => res.resume());
        res.on('end', () => body.end());
        const broken = (err?: Error) =>
          body.destroy(
            deadline.aborted
              ? new OutboundError('timeout', 'timed out')
              : err
                ? wrap(err)
                : new OutboundError('network', 'the connection closed early'),
          );
        res.on('error', broken);
        res.on('aborted', () => broken());
        body.on('close', () => res.destroy());
        resolve({ status, headers: res.headers, body });
      },
    );
    req.on('error', (err) => reject(wrap(err)));
    req.end(opts.body);
  });
}

const wrap = (err: Error): OutboundError =>
  err instanceof OutboundError
    ? err
    : err.name === 'AbortError' || err.name === 'TimeoutError'
      ? new OutboundError('timeout', 'timed out')
      : new OutboundError('network', err.message);
