import type { FastifyReply } from 'fastify';

/** The headers of every unsubscribe page: nothing loads, nothing frames it, nothing caches it or leaks its address. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; form-action 'self'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

const ENTITIES: ReadonlyMap<string, string> = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&#39;'],
]);

/** Text made safe for HTML content and quoted attribute values. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES.get(c) ?? c);

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}' +
  'button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}';

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`
  );
}

/** The confirmation form: one button that POSTs the one-click request (a GET changes nothing). */
export function confirmPage(input: { siteName: string; email: string; token: string }): string {
  const action = `/api/v1/email/unsubscribe?token=${encodeURIComponent(input.token)}`;
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe</h1><p>Stop marketing mail from <strong>${escapeHtml(input.siteName)}</strong> to ` +
      `<strong>${escapeHtml(input.email)}</strong>?</p>` +
      `<form method="post" action="${escapeHtml(action)}">` +
      `<input type="hidden" name="List-Unsubscribe" value="One-Click"><input type="hidden" name="page" value="1">` +
      `<button type="submit">Unsubscribe</button></form>`,
  );
}

/** After the form's POST: the same words whether the address was on the list already or not. */
export function donePage(siteName: string): string {
  return page(
    'Unsubscribed',
    `<h1>Unsubscribed</h1><p>You will receive no more marketing mail from <strong>${escapeHtml(siteName)}</strong> ` +
      `at this address. Mail you asked for (password resets, confirmations) still arrives.</p>`,
  );
}

/** A failure as a page, with the status and code it would have had as JSON. */
export function errorPage(status: number, code: string, message: string): string {
  return page(
    'Unsubscribe',
    `<h1>This link did not work</h1><p>${escapeHtml(message)}</p><p><small>${status} ${escapeHtml(code)}</small></p>`,
  );
}

/** Sends an HTML page with the page headers. */
export const sendPage = (reply: FastifyReply, status: number, html: string) =>
  reply.status(status).headers(PAGE_HEADERS).send(html);
