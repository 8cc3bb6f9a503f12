/** The part of `http_ece` (RFC 8188 encrypted content encoding) the test push service uses. */
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';
  interface Params {
    version: 'aes128gcm' | 'aesgcm' | 'aesgcm128';
    privateKey?: ECDH;
    authSecret?: Buffer | string;
    dh?: Buffer | string;
    keyid?: string;
  }
  const ece: {
    decrypt(buffer: Buffer, params: Params): Buffer;
    encrypt(buffer: Buffer, params: Params): Buffer;
  };
  export default ece;
}
