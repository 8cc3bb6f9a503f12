import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The headers of the shell (and of the redirect to it): never stored, never framed, never indexed. */
export const SHELL_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
} as const;

/** The shell's Content-Security-Policy: scripts and styles only from here and only with this request's nonce. */
export const shellCsp = (nonce: string): string =>
  [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data: blob:",
    "frame-ancestors 'none'",
    "base-uri 'self'",
  ].join('; ');

/** Served while `studio/dist` does not exist: the same headers, and how to build the studio. */
const NOT_BUILT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Studio not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{background:#eee;padding:0 .2em}</style>
</head>
<body>
<h1>The studio is not built</h1>
<p>The service is running, but the studio's files are missing. Build them with <code>npm install</code> (its
postinstall builds <code>studio/</code> into <code>studio/dist</code>) and restart with <code>npm start</code>, or
point <code>SVC_STUDIO_DIR</code> at a built studio.</p>
</body>
</html>
`;

const NONCE_ATTR = /\snonce=(?:"[^"]*"|'[^']*'|[^\s>]+)/gi;
const BASE_TAG = /<base\b[^>]*>/gi;
const HEAD_OPEN = /<head\b[^>]*>/i;
const SCRIPT_OR_STYLE = /<(script|style)\b/gi;
const STYLESHEET_LINK = /<link\b(?=[^>]*\brel\s*=\s*["']?stylesheet\b)/gi;

const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The shell of one request: `<base href="<adminPath>/">` first in the head (the built files' relative addresses
 * resolve under the admin path, wherever it is), and this request's nonce on every script, style and stylesheet
 * link (a nonce already in the file is dropped: only the request's counts).
 */
export function renderShell(template: string, adminPath: string, nonce: string): string {
  const n = escapeAttr(nonce);
  const html = template
    .replace(NONCE_ATTR, '')
    .replace(BASE_TAG, '')
    .replace(SCRIPT_OR_STYLE, `<$1 nonce="${n}"`)
    .replace(STYLESHEET_LINK, `<link nonce="${n}"`);
  const base = `<base href="${escapeAttr(adminPath)}/">`;
  const head = HEAD_OPEN.exec(html);
  if (!head) return `${base}${html}`;
  const at = head.index + head[0].length;
  return `${html.slice(0, at)}${base}${html.slice(at)}`;
}

/** The studio's `index.html`, read at each request (a rebuild shows without a restart), or the "not built" page. */
export async function shellTemplate(dir: string): Promise<string> {
  try {
    return await readFile(join(dir, 'index.html'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return NOT_BUILT;
    throw err;
  }
}
