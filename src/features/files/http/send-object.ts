import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.ts';

/** `Content-Disposition` for a name from a request: an ASCII fallback and the exact name in RFC 5987 form. */
export function disposition(kind: 'attachment' | 'inline', filename: string): string {
  const ascii = filename.replace(/[^A-Za-z0-9._ -]/g, '_').slice(0, 200) || 'download';
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

const hardening = (reply: FastifyReply) =>
  reply
    .header('x-content-type-options', 'nosniff')
    // An SVG (or anything else) opened directly from the service runs nothing and loads nothing.
    .header('content-security-policy', "default-src 'none'; sandbox");

/**
 * Sends stored bytes as a download: the stored type, `attachment`, `nosniff`, a sandboxing CSP, and the content
 * hash as a strong ETag (304 on a match). `missing` is the error when storage has lost the bytes.
 */
export async function sendObject(
  reply: FastifyReply,
  req: FastifyRequest,
  storage: AppDeps['storage'],
  filename: string,
  source: { objectKey: string; mimeType: string; sha256: string },
  missing: () => Error,
  cacheControl = 'private, no-cache',
) {
  const etag = `"${source.sha256}"`;
  void hardening(reply).header('etag', etag).header('cache-control', cacheControl);
  if (req.headers['if-none-match'] === etag) return reply.status(304).send();
  const object = await storage.get(source.objectKey);
  if (!object) throw missing();
  return reply
    .header('content-type', source.mimeType)
    .header('content-length', String(object.size))
    .header('content-disposition', disposition('attachment', filename))
    .send(object.body);
}

/**
 * A derivative: an image to show (inline), immutable under its address (which names the original's hash and the
 * parameters), kept a year by the caller's browser (`private`, authenticated routes) or by anyone (`public`
 * delivery).
 */
export async function sendDerivative(
  reply: FastifyReply,
  req: FastifyRequest,
  storage: AppDeps['storage'],
  objectKey: string,
  missing: () => Error,
  audience: 'private' | 'public' = 'private',
) {
  const [sha256 = '', name = ''] = objectKey.split('/').slice(-2);
  const etag = `"${sha256.slice(0, 16)}-${name}"`;
  // The address names the bytes, but only a derivative that exists may answer 304.
  const object = await storage.get(objectKey);
  if (!object) throw missing();
  void hardening(reply).header('etag', etag).header('cache-control', `${audience}, max-age=31536000, immutable`);
  if (req.headers['if-none-match'] === etag) {
    object.body.destroy();
    return reply.status(304).send();
  }
  return reply
    .header('content-type', object.contentType ?? 'application/octet-stream')
    .header('content-length', String(object.size))
    .header('content-disposition', 'inline')
    .send(object.body);
}
