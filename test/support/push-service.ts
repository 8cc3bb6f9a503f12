import { execFileSync } from 'node:child_process';
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ece from 'http_ece';
import { importJWK, jwtVerify } from 'jose';

/**
 * A Web Push service on loopback HTTPS, as browsers' push services speak RFC 8030: it takes `POST <endpoint>` with an
 * aes128gcm body and a VAPID `Authorization` header, and answers 201. Its certificate comes from a CA of its own
 * (openssl, in a temporary directory), which the service under test is told to trust through SVC_PUSH_CA_FILE: TLS
 * checks stay on. Paths decide the answer: `/gone/…` 410, `/missing/…` 404, `/hang/…` never answers.
 */
export interface PushService {
  origin: string;
  /** The CA certificate (PEM file) to trust. */
  caFile: string;
  received: { path: string; headers: Record<string, string | string[] | undefined>; body: Buffer }[];
  close(): Promise<void>;
}

export async function startPushService(): Promise<PushService> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-push-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=svc test push CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  ssl('req', ...ec, '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'srv.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'srv.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'srv.pem',
    '-days',
    '2',
    '-extfile',
    'srv.ext',
  );
  const received: PushService['received'] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server = https.createServer(
    { key: readFileSync(join(dir, 'srv.key')), cert: readFileSync(join(dir, 'srv.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
        if (path.startsWith('/hang/')) return void hanging.add(res);
        res.writeHead(path.startsWith('/gone/') ? 410 : path.startsWith('/missing/') ? 404 : 201).end();
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile: join(dir, 'ca.pem'),
    received,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A browser's side of a subscription: its P-256 key pair and auth secret, as the Push API makes them. */
export interface Browser {
  ecdh: ECDH;
  auth: Buffer;
  subscription(endpoint: string): { endpoint: string; keys: { p256dh: string; auth: string } };
}

export function newBrowser(): Browser {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    subscription: (endpoint) => ({
      endpoint,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    }),
  };
}

/**
 * What the push service checks of a request, and what the browser reads of it: the VAPID JWT (ES256 under the key
 * in `k`, `aud` the endpoint's origin, `exp` within 24 hours, `sub` the contact) and the payload decrypted with the
 * browser's private key and auth secret (RFC 8291, aes128gcm).
 */
export async function openPush(
  req: PushService['received'][number],
  browser: Browser,
  expect: { origin: string; vapidPublicKey: string; subject: string },
): Promise<unknown> {
  const authz = String(req.headers.authorization ?? '');
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authz);
  if (!m) throw new Error(`no VAPID authorization: ${authz}`);
  if (m[2] !== expect.vapidPublicKey) throw new Error('k is not the VAPID public key');
  const point = Buffer.from(m[2]!, 'base64url');
  const key = await importJWK(
    {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    'ES256',
  );
  const { payload, protectedHeader } = await jwtVerify(m[1]!, key, { audience: expect.origin, algorithms: ['ES256'] });
  if (protectedHeader.alg !== 'ES256') throw new Error('not ES256');
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.exp !== 'number' || payload.exp <= now || payload.exp > now + 24 * 3600)
    throw new Error(`exp out of range: ${String(payload.exp)}`);
  if (payload.sub !== expect.subject) throw new Error(`sub is ${String(payload.sub)}`);
  if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('not aes128gcm');
  const plain = ece.decrypt(req.body, { version: 'aes128gcm', privateKey: browser.ecdh, authSecret: browser.auth });
  return JSON.parse(plain.toString('utf8')) as unknown;
}
