import type { TestApp } from '../setup/app.ts';

export interface UploadAddress {
  uploadId: string;
  url: string;
  headers: Record<string, string>;
}

/**
 * Asks for an upload address (POST /api/v1/files/presigned-url) and sends the bytes there: the service's own signed
 * PUT on disk (through the app), or the presigned PUT on S3 (to the server). Answers the address and the PUT's status
 * and body, whatever they are.
 */
export async function uploadTo(
  t: TestApp,
  bytes: Buffer,
  file: { filename: string; mimeType: string },
  opts: { as: string; site?: string },
): Promise<{ address: UploadAddress; status: number; body: string }> {
  const site = opts.site ?? 'main';
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/files/presigned-url',
    as: opts.as,
    site,
    payload: { ...file, size: bytes.length },
  });
  if (res.statusCode !== 201) throw new Error(`presigned-url: ${res.statusCode} ${res.body}`);
  const address = res.json().data as UploadAddress;
  if (address.url.startsWith('/')) {
    const put = await t.call({ method: 'PUT', url: address.url, site, headers: address.headers, payload: bytes });
    return { address, status: put.statusCode, body: put.body };
  }
  const put = await fetch(address.url, { method: 'PUT', headers: address.headers, body: new Uint8Array(bytes) });
  return { address, status: put.status, body: await put.text() };
}
