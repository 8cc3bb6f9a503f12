import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminPathCache } from '../admin-path.cache.ts';
import { renderShell, SHELL_HEADERS, shellCsp, shellTemplate } from '../shell.ts';

/** A year: hashed file names change with their content, so a cached copy is never wrong. */
const IMMUTABLE_MS = 31_536_000_000;

/** An asset's name under `assets/`: plain segments, none starting with a dot (no `..`, no hidden files, no `%`). */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** A media range of Accept that takes HTML: text/html or any type, with a quality above 0. */
export function acceptsHtml(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'text/html' && type !== '*/*' && type !== 'text/*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * The studio at the admin path: `<adminPath>` redirects to `<adminPath>/`; `<adminPath>/assets/*` are the built,
 * hashed files (immutable); any other `<adminPath>/*` that accepts HTML is the shell, rendered for the request with
 * a nonce of its own. Every other GET (and everything before setup) is the application's one 404: the handler
 * hands it to the not-found handler, so there is one answer to tell apart from, not two. The path is compared as
 * sent (no decoding): `/My-Admin` or `/my%2Dadmin` is not `/my-admin`.
 */
export const studioServing: FastifyPluginAsync<{ paths: AdminPathCache; dir: string }> = async (app, opts) => {
  const dir = resolve(opts.dir);
  const assets = join(dir, 'assets');
  // The admin path changes while the service runs, so no route of its own: the application's not-found handler asks
  // this first (NotFoundFallback), and files go out through sendFile (@fastify/static, registered by the app).
  app.notFoundFallbacks.push(async (req, reply) => {
    const path = req.url.split('?', 1)[0]!;
    const admin = await opts.paths.current();
    if (admin === null || !(path === admin || path.startsWith(`${admin}/`))) return false;
    if (path === admin) {
      await reply.headers(SHELL_HEADERS).redirect(`${admin}/`, 302);
      return true;
    }
    const rest = path.slice(admin.length + 1);
    if (rest.startsWith('assets/')) {
      const name = rest.slice('assets/'.length);
      // A missing file is the one 404 (sendFile's own would be fastify's plain text, from inside this handler).
      if (!ASSET_NAME.test(name) || !(await isFile(join(assets, name)))) return false;
      await reply.sendFile(name, assets, ASSET_OPTIONS);
      return true;
    }
    if (!acceptsHtml(req.headers.accept)) return false;
    await sendShell(req, reply, dir, admin);
    return true;
  });
};

const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

const ASSET_OPTIONS = {
  dotfiles: 'ignore',
  etag: true,
  lastModified: true,
  cacheControl: true,
  maxAge: IMMUTABLE_MS,
  immutable: true,
} as const;

async function sendShell(_req: FastifyRequest, reply: FastifyReply, dir: string, admin: string) {
  const nonce = randomBytes(18).toString('base64');
  const html = renderShell(await shellTemplate(dir), admin, nonce);
  return reply
    .headers(SHELL_HEADERS)
    .header('content-security-policy', shellCsp(nonce))
    .type('text/html; charset=utf-8')
    .send(html);
}
