import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { inspectJson, inspectParams, inspectQuery, MAX_PARAM_LENGTH, type InputProblem } from './input-guard.ts';
import { MalformedJson, RefusedInput } from '../../kernel/http/kernel.errors.ts';

export interface EdgeLimits {
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  connectionTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderBytes: number;
  /** SVC_TRUST_PROXY: a hop count or a comma list of addresses/CIDRs; unset trusts no proxy. */
  trustProxy?: string;
}

export { MAX_PARAM_LENGTH };

/**
 * Server options that bound what one client can hold: the whole request within a time (a trickled body is cut
 * off with 408), headers within a shorter one and a size, idle sockets closed, and which proxies to believe.
 */
export function edgeServerOptions(limits: EdgeLimits): FastifyServerOptions {
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    trustProxy: trustProxy(limits.trustProxy),
    http: {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks the timeouts above on this interval (30 s by default, longer than the timeouts themselves).
      connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(headersTimeout / 2))),
    },
    frameworkErrors,
    clientErrorHandler,
  } as FastifyServerOptions;
}

/**
 * `10.0.0.0/8,127.0.0.1` (or proxy-addr's names `loopback`, `uniquelocal`) trusts those proxies: the safer form.
 * `2` trusts the two nearest hops whoever they are, so only where clients cannot reach the service directly.
 * Unset or `false` trusts none.
 */
export function trustProxy(value: string | undefined): ((addr: string, hop: number) => boolean) | string[] | false {
  const v = value?.trim();
  if (!v || v === 'false' || v === '0') return false;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_addr, hop) => hop < hops;
  }
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const failure = (code: string, message: string, path: string[], reason: string) => ({
  errors: [{ code, message, path, extensions: { reason } }],
});

/** Router failures (a malformed escape such as `%` in the path, an over-long path parameter) in the envelope. */
function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply
      .status(414)
      .send(
        failure(
          'VALIDATION_FAILED',
          `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
          ['params'],
          'too_long',
        ),
      );
  } else if (err.code === 'FST_ERR_BAD_URL') {
    void reply.status(400).send(failure('VALIDATION_FAILED', 'the path is not a valid URL', ['url'], 'bad_url'));
  } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    // Any other client error the router reports keeps its status, in the envelope.
    void reply.status(err.statusCode).send(failure('VALIDATION_FAILED', err.message, ['url'], 'router'));
  } else {
    void reply.status(500).send(failure('INTERNAL', 'internal error', [], 'router'));
  }
}

/** Failures Node's HTTP parser answers before any route (timeouts, oversized headers), in the envelope too. */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, reason, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'request_timeout', 'the request did not arrive in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'the request headers are too large']
        : [400, 'Bad Request', 'malformed_request', 'the request is not valid HTTP'];
  const body = JSON.stringify(failure('VALIDATION_FAILED', message, ['headers'], reason));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const refuse = (p: InputProblem) => new RefusedInput(p);

/**
 * The edge every request crosses before authentication: JSON bodies parsed without prototype keys and with a
 * depth cap (an empty body with a JSON content type is no body), and query keys, list parameters and path
 * parameters refused when they name prototype members or carry NUL or lone surrogates.
 */
export function installEdge(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return done(new MalformedJson({ reason: (err as Error).message }));
    }
    const p = inspectJson(parsed, ['body']);
    return p ? done(refuse(p)) : done(null, parsed);
  });
  app.addHook('onRequest', async (req) => {
    const p =
      inspectParams((req.params ?? {}) as Record<string, unknown>) ??
      inspectQuery((req.query ?? {}) as Record<string, unknown>);
    if (p) throw refuse(p);
  });
}
