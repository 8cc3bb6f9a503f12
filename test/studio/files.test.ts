import { describe, expect, it } from 'vitest';
import {
  altOf,
  fileIdOf,
  fileSummary,
  formatBytes,
  previewSize,
  previewTransform,
  type FileRecord,
} from '../../studio/src/files.ts';

const png = (width: number | null, height: number | null, more: Partial<FileRecord> = {}): FileRecord => ({
  id: 'f1',
  filename: 'red.png',
  type: 'image/png',
  filesize: 1234,
  width,
  height,
  ...more,
});

describe('a file field', () => {
  describe('the preview of an image', () => {
    it('fits a large image inside the preview box', () => {
      const t = previewTransform(png(400, 300))!;
      expect(t).toEqual({ width: 160, height: 160, fit: 'inside' });
      expect(previewSize(png(400, 300), t)).toEqual({ width: 160, height: 120 });
      const tall = png(300, 1200);
      expect(previewSize(tall, previewTransform(tall)!)).toEqual({ width: 40, height: 160 });
    });

    it('never asks for more pixels than the image has (the transform would enlarge it)', () => {
      const t = previewTransform(png(40, 30))!;
      expect(t).toEqual({ width: 40, height: 30, fit: 'inside' });
      expect(previewSize(png(40, 30), t)).toEqual({ width: 40, height: 30 });
      const wide = png(1000, 20);
      expect(previewSize(wide, previewTransform(wide)!)).toEqual({ width: 160, height: 3 });
    });

    it('has none for a file the service does not transform or whose size is unknown', () => {
      expect(previewTransform(png(400, 300, { type: 'image/svg+xml' }))).toBeNull();
      expect(previewTransform(png(null, null, { type: 'application/pdf' }))).toBeNull();
      expect(previewTransform(png(null, 300))).toBeNull();
      expect(previewTransform(png(400, 300, { type: null }))).toBeNull();
    });

    it('is described by the title, else the name, else the id', () => {
      expect(altOf(png(1, 1, { title: 'A red square' }))).toBe('A red square');
      expect(altOf(png(1, 1, { title: '  ' }))).toBe('red.png');
      expect(altOf({ id: 'f9' })).toBe('f9');
    });
  });

  it('reads byte counts as people do', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1023)).toBe('1023 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes('10485760')).toBe('10 MB');
    expect(formatBytes(250 * 1024 * 1024)).toBe('250 MB');
    expect(formatBytes(null)).toBeNull();
    expect(formatBytes('12x')).toBeNull();
    expect(formatBytes(-1)).toBeNull();
  });

  it('sums a file up by what its record shows', () => {
    expect(fileSummary(png(400, 300))).toBe('red.png · image/png · 1.2 KB · 400 × 300');
    expect(fileSummary({ id: 'f2', type: 'application/pdf', filesize: '2048' })).toBe('f2 · application/pdf · 2 KB');
  });

  it("takes the file's id from the value, whether an id or the file expanded", () => {
    expect(fileIdOf('f1')).toBe('f1');
    expect(fileIdOf({ id: 'f1', width: 3 })).toBe('f1');
    expect(fileIdOf(null)).toBe('');
    expect(fileIdOf({ title: 'no id' })).toBe('');
  });
});
