import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

interface KeyPair {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
}

/** A local identity provider for tests: RSA and EC keys, a JWKS and a discovery document over real HTTP. */
export interface TestIdp {
  base: string;
  jwksUri: string;
  discoveryUrl: string;
  rsa: KeyPair;
  ec: KeyPair;
  /** A key the JWKS does not publish. */
  stranger: KeyPair;
  /** Signs `claims` (iat now, exp in 10 minutes unless given) with the key, naming its kid. */
  sign(key: KeyPair, claims: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

async function keyPair(kid: string, alg: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { pair: { kid, alg, privateKey }, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function startTestIdp(): Promise<TestIdp> {
  const rsa = await keyPair('rsa-1', 'RS256');
  const ec = await keyPair('ec-1', 'ES256');
  const stranger = await keyPair('rsa-2', 'RS256');
  let base = '';
  const server: Server = createServer((req, res) => {
    const body =
      req.url === '/jwks'
        ? { keys: [rsa.jwk, ec.jwk] }
        : req.url === '/.well-known/openid-configuration'
          ? { issuer: `${base}/`, jwks_uri: `${base}/jwks` }
          : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    jwksUri: `${base}/jwks`,
    discoveryUrl: `${base}/.well-known/openid-configuration`,
    rsa: rsa.pair,
    ec: ec.pair,
    stranger: stranger.pair,
    sign: (key, claims) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .sign(key.privateKey);
    },
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}
