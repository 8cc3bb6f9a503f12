import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { queueMarketingMail } from './index.ts';

/** A real SMTP server in the test process, keeping each message with its recipients. */
function smtpServer() {
  const received: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        done();
      });
    },
  });
  return { server, received };
}

/** A header of a raw message, unfolded (a long value may be folded onto the next line). */
const header = (raw: string, name: string) => {
  const head = raw.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ');
  return head
    .split('\r\n')
    .find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    ?.slice(name.length + 1)
    .trim();
};

describe('marketing mail over SMTP', () => {
  let t: TestApp;
  let admin: string;
  const smtp = smtpServer();
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.server.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.server.address() as AddressInfo).port;
    t = await createTestApp({
      env: {
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        SMTP_FROM: 'news@example.com',
        SVC_MAIL_POLL_MS: '60000',
        SVC_PUBLIC_URL: 'https://cms.example.com/',
      },
    });
    admin = await t.setup();
    await t.deps.flushMail();
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
  });

  it('arrives with List-Unsubscribe and List-Unsubscribe-Post, and its link unsubscribes in one POST', async () => {
    const mail = { siteId: 'main', subject: 'Spring news', body: 'Hello' };
    expect(await queueMarketingMail(t.deps, { ...mail, to: 'reader@example.com' })).toEqual({ queued: true });
    expect(await t.deps.flushMail()).toBe(1);
    expect(smtp.received).toHaveLength(1);
    const { raw, to } = smtp.received[0]!;
    expect(to).toEqual(['reader@example.com']);
    const link = header(raw, 'List-Unsubscribe');
    expect(link).toMatch(/^<https:\/\/cms\.example\.com\/api\/v1\/email\/unsubscribe\?token=[\w.-]+>$/);
    expect(header(raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');

    // What a mailbox provider does with the headers (RFC 8058): POST the form body to the link.
    const url = new URL(link!.slice(1, -1));
    const res = await t.call({
      method: 'POST',
      url: `${url.pathname}${url.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode, res.body).toBe(200);

    // Suppressed now: the next send writes nothing and nothing arrives.
    expect(await queueMarketingMail(t.deps, { ...mail, to: 'Reader@Example.com' })).toEqual({
      queued: false,
      reason: 'suppressed',
    });
    expect(await t.deps.flushMail()).toBe(0);
    expect(smtp.received).toHaveLength(1);
  });

  it('sends transactional mail without unsubscribe headers, even to a suppressed address', async () => {
    await t.call({
      method: 'POST',
      url: '/api/v1/email/suppressions',
      as: admin,
      site: 'main',
      payload: { email: 'admin@example.com' },
    });
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/auth/forgot-password',
      payload: { email: 'admin@example.com' },
    });
    expect(res.statusCode).toBe(202);
    await t.deps.afterAnswer.settled(); // the mail is written after the answer
    expect(await t.deps.flushMail()).toBe(1);
    const last = smtp.received.at(-1)!;
    expect(last.to).toEqual(['admin@example.com']);
    expect(header(last.raw, 'List-Unsubscribe')).toBeUndefined();
  });
});
