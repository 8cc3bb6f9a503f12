import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with what the signature check said. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** The signature matches the secret of the path (recomputed with `Webhook.sign`, at any age). */
  signed: boolean;
  /** `Webhook.verify` accepts it (signature and a timestamp within five minutes of now). */
  verified: boolean;
}

/**
 * A local webhook receiver: checks each request's Standard Webhooks signature against the secret registered for
 * its path and answers with the statuses queued for that path (200 when none), or drops the connection for `reset`.
 */
export async function startReceiver() {
  const secrets = new Map<string, string>();
  const answers = new Map<string, (number | 'reset')[]>();
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = secrets.get(path);
      const headers = req.headers as Record<string, string>;
      const wh = secret ? new Webhook(secret) : null;
      const ts = new Date(Number(headers['webhook-timestamp']) * 1000);
      const signed = !!wh && wh.sign(headers['webhook-id'] ?? '', ts, body) === headers['webhook-signature'];
      let verified = false;
      try {
        wh?.verify(body, headers);
        verified = !!wh;
      } catch {
        verified = false;
      }
      received.push({ path, headers: req.headers, body, payload: JSON.parse(body), signed, verified });
      const answer = answers.get(path)?.shift() ?? 200;
      if (answer === 'reset') return void req.socket.destroy();
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** Registers the secret the path's requests must be signed with. */
    expect: (path: string, secret: string) => void secrets.set(path, secret),
    answer: (path: string, ...statuses: (number | 'reset')[]) => void answers.set(path, statuses),
    at: (path: string) => received.filter((r) => r.path === path),
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
