import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../kernel/http/errors.ts';
import { extensionOf } from './filename.ts';

function refusal(filename: string): DomainError {
  try {
    extensionOf(filename);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(filename)}`);
}

describe('extensionOf', () => {
  it.each([
    ['photo.jpg', 'jpg'],
    ['Photo.JPEG', 'jpeg'],
    ['archive.tar.gz', 'gz'],
    ['..png', 'png'],
    ['über café.PNG', 'png'],
  ])('takes %j as %j', (filename, extension) => expect(extensionOf(filename)).toBe(extension));

  it.each([
    ['photo', 'UPLOAD_TYPE_NOT_ALLOWED', /"photo" has no extension/],
    ['.png', 'UPLOAD_TYPE_NOT_ALLOWED', /"\.png" has no extension/],
    ['photo.', 'UPLOAD_TYPE_NOT_ALLOWED', /"photo\." has no extension/],
    ['../photo.png', 'VALIDATION_FAILED', /contains a path separator/],
    ['dir\\photo.png', 'VALIDATION_FAILED', /contains a path separator/],
    ['photo\0.png', 'VALIDATION_FAILED', /contains a NUL byte/],
    ['pho\nto.png', 'VALIDATION_FAILED', /contains a control character/],
    ['...', 'VALIDATION_FAILED', /consists only of dots/],
    ['', 'VALIDATION_FAILED', /is empty/],
    [`${'a'.repeat(300)}.png`, 'VALIDATION_FAILED', /is longer than 255 bytes/],
  ])('refuses %j with %s', (filename, code, message) => {
    const err = refusal(filename);
    expect([err.code, err.message, err.options.path]).toEqual([code, expect.stringMatching(message), ['filename']]);
  });
});
