import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

/** A real SMTP server in the test process (smtp-server, nodemailer's own), keeping what it receives. */
function smtpServer(opts: { refuse: () => boolean }) {
  const received: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        if (opts.refuse()) return done(new Error('mailbox unavailable'));
        received.push(raw);
        done();
      });
    },
  });
  return { server, received };
}

describe('SMTP delivery of the outbox', () => {
  let t: TestApp;
  let admin: string;
  let refuse = false;
  const smtp = smtpServer({ refuse: () => refuse });
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.server.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.server.address() as AddressInfo).port;
    t = await createTestApp({
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'cms@example.com', SVC_MAIL_POLL_MS: '60000' },
    });
    admin = await t.setup();
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
  });

  it('sends queued mail once and marks it sent; a refused mail is kept for a later attempt', async () => {
    await t.deps.flushMail();
    // The reset mail is written after the answer: wait for that work before flushing.
    const ask = async () => {
      const res = await t.call({
        method: 'POST',
        url: '/api/v1/auth/forgot-password',
        payload: { email: 'admin@example.com' },
      });
      await t.deps.afterAnswer.settled();
      return res;
    };
    refuse = true;
    expect((await ask()).statusCode).toBe(202);
    expect(await t.deps.flushMail()).toBe(1);
    let outbox = (await t.call({ method: 'GET', url: '/api/v1/admin/outbox', as: admin })).json().data;
    expect(outbox[0]).toMatchObject({ kind: 'reset-password', sentAt: null, attempts: 1 });
    expect(outbox[0].lastError).toMatch(/mailbox unavailable/);
    expect(smtp.received).toHaveLength(0);
    refuse = false;
    expect((await ask()).statusCode).toBe(202);
    // The refused one waits for its retry delay; the new one goes now, exactly once.
    expect(await t.deps.flushMail()).toBe(1);
    expect(await t.deps.flushMail()).toBe(0);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]).toMatch(/From: cms@example.com/);
    expect(smtp.received[0]).toMatch(/To: admin@example.com/);
    expect(smtp.received[0]).toMatch(/Subject: Reset your password/);
    outbox = (await t.call({ method: 'GET', url: '/api/v1/admin/outbox', as: admin })).json().data;
    expect(outbox[0].sentAt).not.toBeNull();
    expect(outbox[1].sentAt).toBeNull();
  });
});
