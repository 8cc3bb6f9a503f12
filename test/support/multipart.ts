import { randomBytes } from 'node:crypto';

/** One part of a multipart/form-data body: a field (`value`) or a file (`filename`, `type`, `data`). */
export interface FormPart {
  name: string;
  value?: string;
  filename?: string;
  type?: string;
  data?: Buffer;
}

/**
 * A multipart/form-data body written byte by byte (what curl -F and browsers send), so a test can also send what
 * they never would: any filename, any declared type, a body cut short.
 */
export function multipartBody(parts: FormPart[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----svc${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.type !== undefined) head += `Content-Type: ${p.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), p.data ?? Buffer.from(p.value ?? '', 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
