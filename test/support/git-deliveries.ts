import { createHmac, randomUUID } from 'node:crypto';
import type { TestApp } from '../setup/app.ts';

/** GitHub's `X-Hub-Signature-256` of a body under a webhook secret. */
export const githubSignature = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * Sends a delivery as GitHub does: JSON, a fresh delivery id, the body signed with the secret. The event header is
 * whatever the caller says (GitHub does not sign it).
 */
export function sendGithubDelivery(
  t: TestApp,
  path: string,
  payload: object,
  opts: { secret: string; event?: string },
) {
  const body = JSON.stringify(payload);
  return t.call({
    method: 'POST',
    url: path,
    payload: body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': opts.event ?? 'pull_request',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': githubSignature(opts.secret, body),
    },
  });
}
