import net from 'node:net';

/** An answer read off a raw socket: what app.inject() cannot show (the HTTP parser's own refusals). */
export interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size || eol < 0) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 4 + size);
  }
}

/** Sends one request as raw bytes (a path with bytes no client library would send) and reads the whole answer. */
export function rawRequest(port: number, head: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = net.connect(port, '127.0.0.1', () => s.write(head));
    s.on('data', (d) => chunks.push(d));
    s.on('error', reject);
    s.setTimeout(15_000, () => s.destroy());
    s.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const headers = text.slice(0, split);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0);
      const contentType = /\r\ncontent-type: ([^\r]*)/i.exec(headers)?.[1] ?? '';
      const raw = split < 0 ? '' : text.slice(split + 4);
      resolve({ status, contentType, body: /\r\ntransfer-encoding: chunked/i.test(headers) ? dechunk(raw) : raw });
    });
  });
}

/** Raw request heads for one path: bytes that are not UTF-8, a bare `%`, NUL, and headers past the server's limit. */
export function socketCases(path: string, method: string, site: string): Array<{ kind: string; head: Buffer }> {
  const line = (target: Buffer | string, extra = '') =>
    Buffer.concat([
      Buffer.from(`${method} `),
      Buffer.isBuffer(target) ? target : Buffer.from(target),
      Buffer.from(` HTTP/1.1\r\nHost: fuzz\r\nX-Svc-Site: ${site}\r\nConnection: close\r\n${extra}\r\n`),
    ]);
  return [
    {
      kind: 'socket:raw-lone-surrogate-bytes',
      head: line(Buffer.concat([Buffer.from(`${path}/`), Buffer.from([0xed, 0xa0, 0x80])])),
    },
    {
      kind: 'socket:raw-invalid-utf8',
      head: line(Buffer.concat([Buffer.from(`${path}?search=`), Buffer.from([0xff, 0xfe])])),
    },
    { kind: 'socket:percent-path', head: line(`${path}/%`) },
    { kind: 'socket:nul-path', head: line(`${path}/a%00b`) },
    { kind: 'socket:huge-header', head: line(path, `X-Fuzz-Padding: ${'h'.repeat(64 * 1024)}\r\n`) },
    { kind: 'socket:huge-url', head: line(`${path}?q=${'u'.repeat(64 * 1024)}`) },
  ];
}
