import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, onSendHookHandler } from 'fastify';
import '../../kernel/http/route-config.ts';

/** Answers smaller than this go out as they are: below about a kilobyte compression saves less than it costs. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * The qualities (decisions, "Compression"): brotli 4 and gzip 6 compress a list or the OpenAPI document to within a
 * few percent of their best at a fraction of the CPU (brotli's default, 11, is tens of times slower).
 */
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

/**
 * Answers up to this size are compressed in one call rather than through a zlib stream: a stream allocates a fresh
 * encoder per answer, which cost more than the compression itself (bench/compress.ts: a 25-item list took 0.6 ms more
 * CPU streamed, 0.3 ms in one call; the OpenAPI document 9 ms more against 4 ms). Larger answers are streamed.
 */
const SYNC_LIMIT = 1_048_576;

/** JSON in any of its forms (`application/json`, `application/scim+json`, …); nothing else is compressed. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Compresses JSON answers of a kilobyte or more, br or gzip as the request's `Accept-Encoding` prefers, with
 * `@fastify/compress`. Never compressed: answers of routes marked `secretAnswer` (a secret next to caller-chosen
 * text is what BREACH-style attacks read back from compressed sizes), streams (file and media bytes, exports: they
 * stay streamed, not buffered), downloads, and any type but JSON (SSE takes over the socket and is never seen here).
 * Compressible answers say `Vary: Accept-Encoding` whether or not this request asked for compression. Request bodies
 * are not decompressed. Install before any route: routes registered earlier are left alone.
 */
export async function installCompression(app: FastifyInstance, opts: { threshold?: number } = {}): Promise<void> {
  const threshold = opts.threshold ?? COMPRESSION_THRESHOLD;
  app.addHook('onRoute', (route) => {
    if (route.config?.secretAnswer) route.compress = false;
  });
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
    zlibOptions: { level: GZIP_LEVEL },
    syncThreshold: SYNC_LIMIT,
    globalDecompression: false,
  });
  // The plugin's own hook has just appended its compressor to the route's onSend hooks: it now runs only for what
  // `compressible` accepts (the plugin alone would also compress any type mime-db calls compressible, streams too).
  app.addHook('onRoute', (route) => {
    if (route.compress === false) return;
    const hooks = [route.onSend ?? []].flat();
    const compressor = hooks.pop();
    if (!compressor) return;
    route.onSend = [...hooks, gated(compressor as onSendHookHandler, threshold)];
  });
}

function gated(compressor: onSendHookHandler, threshold: number): onSendHookHandler {
  return function compressJson(req, reply, payload, done) {
    if (!compressible(reply, payload, threshold)) return done(null, payload);
    varyOnEncoding(reply);
    compressor.call(this, req, reply, payload, done);
  };
}

/** A buffered JSON answer (the serialized envelope) over the threshold, not a download, not already encoded. */
function compressible(reply: FastifyReply, payload: unknown, threshold: number): boolean {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return false;
  if (Buffer.byteLength(payload) < threshold) return false;
  if (reply.hasHeader('content-encoding') || reply.hasHeader('content-disposition')) return false;
  return JSON_TYPE.test(String(reply.getHeader('content-type') ?? 'application/json'));
}

/** Adds `accept-encoding` to Vary (lower case: the plugin looks for it so, and adds nothing more). */
function varyOnEncoding(reply: FastifyReply): void {
  const current = [reply.getHeader('vary') ?? []].flat().map(String).join(', ');
  if (/(?:^|,)\s*(?:\*|accept-encoding)\s*(?:,|$)/i.test(current)) return;
  void reply.header('vary', current ? `${current}, accept-encoding` : 'accept-encoding');
}
