import { UploadEmbeddedPayload } from '../upload.errors.ts';

const marker = (m: string) => ({ marker: m, bytes: lower(Buffer.from(m, 'latin1')) });
/** Markers of a script or a program, matched case-insensitively (ASCII), in text payloads (COM, XMP, tEXt). */
const TEXT_MARKERS = ['<script', '<?php', '\x7fELF', '#!/'].map(marker);
/**
 * The same in binary payloads (EXIF, ICC, a thumbnail), where three random bytes `#!/` turn up in about one
 * 64 KB profile in 250: a `#!` line there must name an interpreter directory.
 */
const BINARY_MARKERS = ['<script', '<?php', '\x7fELF', '#!/bin/', '#!/usr/', '#!/sbin/', '#!/opt/'].map(marker);
const ASP_OPEN = Buffer.from('<%', 'latin1');
const ASP_CLOSE = Buffer.from('%>', 'latin1');
/** The byte after `<%` in server-page code: `<%@ page`, `<%= x %>`, `<%! … %>`, `<%-- … --%>`, `<% code %>`. */
const ASP_NEXT = new Set(Buffer.from('@=!- \t\r\n', 'latin1'));
/** In binary payloads server-page code is `<%`, one of ASP_NEXT, this much printable ASCII, and a `%>` soon after. */
const ASP_CODE = 8;
const ASP_REACH = 4096;
const MZ = Buffer.from('MZ', 'latin1');
const PE = Buffer.from('PE\0\0', 'latin1');
/** Bytes kept from one window to the next so a marker or a DOS header that straddles them is still seen. */
const CARRY = 1024;
/** Small pieces (GIF sub-blocks of at most 255 bytes) are gathered before a scan. */
const BATCH = 16 * 1024;

function lower(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  for (let i = 0; i < out.length; i++) if (out[i]! >= 0x41 && out[i]! <= 0x5a) out[i]! += 0x20;
  return out;
}

/** True when a DOS header at `at` points (e_lfanew) at a `PE\0\0` signature inside `data`. */
export function hasPeHeader(data: Buffer, at: number): boolean {
  if (at + 0x40 > data.length) return false;
  const lfanew = data.readUInt32LE(at + 0x3c);
  return lfanew >= 0x40 && at + lfanew + 4 <= data.length && data.subarray(at + lfanew, at + lfanew + 4).equals(PE);
}

/**
 * Looks for script and executable markers in one metadata payload (a JPEG COM or APPn segment, a PNG text chunk,
 * a GIF comment), fed in windows. `text` payloads take `<%` alone as server-page code; binary ones (EXIF, ICC)
 * need more (serverPageCode), since two such bytes occur by chance in binary data. `MZ` counts only at a payload
 * start (`starts`, offsets into the payload) or before a valid PE header.
 */
export class PayloadScanner {
  private carry = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private offset = 0;

  constructor(
    private readonly mimeType: string,
    private readonly location: string,
    private readonly text: boolean,
    private readonly starts: readonly number[] = [0],
  ) {}

  /** Takes the next bytes of the payload (copied: the caller may reuse its buffer). */
  feed(chunk: Buffer): void {
    this.pending.push(Buffer.from(chunk));
    this.pendingLength += chunk.length;
    if (this.pendingLength >= BATCH) this.flush();
  }

  /** The payload is complete: scans what is left. */
  end(): void {
    this.flush();
  }

  private flush(): void {
    if (this.pendingLength === 0) return;
    const data = Buffer.concat([this.carry, ...this.pending]);
    const base = this.offset - this.carry.length;
    this.offset += this.pendingLength;
    this.pending = [];
    this.pendingLength = 0;
    const marker = this.find(data, base);
    if (marker !== undefined) {
      throw new UploadEmbeddedPayload({ mimeType: this.mimeType, marker, location: this.location });
    }
    this.carry = Buffer.from(data.subarray(Math.max(0, data.length - CARRY)));
  }

  private find(data: Buffer, base: number): string | undefined {
    const folded = lower(data);
    for (const { marker, bytes } of this.text ? TEXT_MARKERS : BINARY_MARKERS) {
      if (folded.includes(bytes)) return marker;
    }
    if (this.serverPage(data)) return '<%';
    for (const s of this.starts) {
      const at = s - base;
      if (at >= 0 && at + 2 <= data.length && data.subarray(at, at + 2).equals(MZ)) return 'MZ';
    }
    for (let at = data.indexOf(MZ); at !== -1; at = data.indexOf(MZ, at + 1)) {
      if (hasPeHeader(data, at)) return 'MZ…PE';
    }
    return undefined;
  }

  private serverPage(data: Buffer): boolean {
    for (let at = data.indexOf(ASP_OPEN); at !== -1; at = data.indexOf(ASP_OPEN, at + 1)) {
      if (this.text || serverPageCode(data, at)) return true;
    }
    return false;
  }
}

function serverPageCode(data: Buffer, at: number): boolean {
  const next = data[at + 2];
  if (next === undefined || !ASP_NEXT.has(next)) return false;
  const code = data.subarray(at + 3, at + 3 + ASP_CODE);
  if (code.length < ASP_CODE || !code.every((b) => b >= 0x20 && b < 0x7f)) return false;
  const close = data.indexOf(ASP_CLOSE, at + 3);
  return close !== -1 && close - at <= ASP_REACH;
}
