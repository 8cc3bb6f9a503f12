import { UploadMalformed, UploadNotText } from '../upload.errors.ts';
import type { Cursor } from './cursor.ts';

/** JSON up to this size is parsed to check it is JSON; larger documents are only checked to be UTF-8 text. */
export const JSON_PARSE_LIMIT = 1024 * 1024;

/**
 * Checks, streaming, that a text upload is UTF-8 without NUL bytes (a binary file under a text name fails here);
 * a small JSON document must also parse.
 */
export async function checkText(c: Cursor, mimeType: string): Promise<void> {
  const utf8 = new Utf8Validator();
  const refuse = (problem: Problem | undefined) => {
    if (problem) throw new UploadNotText({ declared: mimeType, ...problem });
  };
  await c.stream(c.size, (chunk) => refuse(utf8.feed(chunk)));
  refuse(utf8.end());
  if (mimeType === 'application/json' && c.size <= JSON_PARSE_LIMIT) await parseJson(c);
}

async function parseJson(c: Cursor): Promise<void> {
  const parts: Buffer[] = [];
  for await (const part of c.range(0, c.size)) parts.push(part);
  const text = Buffer.concat(parts)
    .toString('utf8')
    .replace(/^\ufeff/, '');
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UploadMalformed({ mimeType: 'application/json', problem: `it is not JSON (${(err as Error).message})` });
  }
}

type Problem = { offset: number; problem: 'a NUL byte' | 'invalid UTF-8' };

/** A streaming UTF-8 validator (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF) that finds NULs. */
class Utf8Validator {
  private offset = 0;
  private need = 0;
  private low = 0x80;
  private high = 0xbf;

  /** The first problem in `chunk`, if any (the validator is done with the file then). */
  feed(chunk: Buffer): Problem | undefined {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.need > 0) {
        if (b < this.low || b > this.high) return this.fail(i, 'invalid UTF-8');
        this.need--;
        this.low = 0x80;
        this.high = 0xbf;
      } else if (b === 0) return this.fail(i, 'a NUL byte');
      else if (b >= 0x80 && !this.lead(b)) return this.fail(i, 'invalid UTF-8');
    }
    this.offset += chunk.length;
    return undefined;
  }

  /** A sequence cut by the end of the file is invalid. */
  end(): Problem | undefined {
    return this.need > 0 ? { offset: this.offset, problem: 'invalid UTF-8' } : undefined;
  }

  /** Takes a lead byte: how many continuation bytes follow and the range of the first one. */
  private lead(b: number): boolean {
    if (b >= 0xc2 && b <= 0xdf) this.need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      this.need = 2;
      if (b === 0xe0) this.low = 0xa0;
      if (b === 0xed) this.high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      this.need = 3;
      if (b === 0xf0) this.low = 0x90;
      if (b === 0xf4) this.high = 0x8f;
    } else return false;
    return true;
  }

  private fail(i: number, problem: Problem['problem']): Problem {
    return { offset: this.offset + i, problem };
  }
}
