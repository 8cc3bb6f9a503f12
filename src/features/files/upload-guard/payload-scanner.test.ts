import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minimalPe } from '../../../../test/fixtures/uploads/binary.ts';
import { PayloadScanner } from './payload-scanner.ts';

/** The marker the scanner reports for `chunks`, or undefined when it lets them pass. */
function scan(chunks: (string | Buffer)[], text: boolean, starts?: number[]): string | undefined {
  const scanner = new PayloadScanner('image/jpeg', 'APP1 segment', text, starts);
  try {
    for (const c of chunks) scanner.feed(typeof c === 'string' ? Buffer.from(c, 'latin1') : c);
    scanner.end();
    return undefined;
  } catch (err) {
    return (err as { options: { extensions: { detected: string } } }).options.extensions.detected;
  }
}

describe('PayloadScanner', () => {
  describe('in a text payload', () => {
    it.each([
      ['<?PHP echo 1;', '<?php'],
      ['a <SCRIPT src=x>', '<script'],
      ['#!/bin/sh', '#!/'],
      ['\x7fELF\x02\x01', '\x7fELF'],
      ['50<% x', '<%'],
    ])('finds %j as %j', (payload, marker) => expect(scan([payload], true)).toBe(marker));

    it('finds a marker split across two windows', () => {
      expect(scan(['x'.repeat(20_000) + '<?p', 'hp system();'], true)).toBe('<?php');
    });

    it('passes ordinary XMP', () => {
      expect(scan(['<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'], true)).toBeUndefined();
    });
  });

  describe('in a binary payload', () => {
    it('needs a #! line to name an interpreter directory', () => {
      expect([scan(['\x00#!/\x13\x88'], false), scan(['\x00#!/usr/bin/env node\n'], false)]).toEqual([
        undefined,
        '#!/usr/',
      ]);
    });

    it('needs <% to open server-page code closed by %>', () => {
      expect([
        scan(['\x01<%\x93\x00\x11%>'], false),
        scan(['\x01<%@ page import="java.io.*" %>'], false),
        scan(['\x01<%= request.getParameter("c") %>'], false),
      ]).toEqual([undefined, '<%', '<%']);
    });

    it('takes MZ for a program only at a payload start or before a PE header', () => {
      const pe = minimalPe();
      expect([
        scan([Buffer.from('Exif\0\0MZ\x90\x00')], false, [0, 6]),
        scan([Buffer.from('II*\0 MZ \x01\x02')], false),
        scan([Buffer.concat([Buffer.from('II*\0\x08\0'), pe])], false),
      ]).toEqual(['MZ', undefined, 'MZ…PE']);
    });

    it('lets random binary metadata (EXIF, ICC, thumbnails) pass', () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 1, maxLength: 16 * 1024 }), (bytes) => {
          // A random buffer starting with MZ is a payload start: the one case that must be refused.
          fc.pre(!(bytes[0] === 0x4d && bytes[1] === 0x5a));
          expect(scan([Buffer.from(bytes)], false)).toBeUndefined();
        }),
        { numRuns: 100 },
      );
    });
  });
});
