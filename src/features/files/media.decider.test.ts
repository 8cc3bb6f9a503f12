import { describe, expect, it } from 'vitest';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec } from '../../../test/support/decider-spec.ts';
import { mediaDecider } from './media.decider.ts';
import type { MediaEvent, StoredMedia } from '../../contracts/files/media.events.ts';

const given = deciderSpec(mediaDecider);
const t1 = '2026-03-01T10:00:00.000Z';
const t2 = '2026-03-02T10:00:00.000Z';
const media = (sha: string): StoredMedia => ({
  objectKey: `sites/s/media/logo.png/${sha}`,
  size: 10,
  mimeType: 'image/png',
  extension: 'png',
  sha256: sha,
  width: 4,
  height: 3,
});
const stored = (sha: string, at: string, by: string, replaced: StoredMedia | null): MediaEvent => ({
  type: 'MediaStored',
  data: { ...media(sha), key: 'logo.png', by, at, replaced },
});
const refusal = {
  key: 'logo.png',
  code: 'UPLOAD_EXECUTABLE',
  message: 'the content is an executable (ELF)',
  filename: 'logo.png',
  declaredMimeType: 'image/png',
  bytesRead: 52,
  by: 'u2',
};

describe('Media', () => {
  it('stores bytes under a new key, naming nothing replaced', () =>
    given([])
      .when({ type: 'StoreMedia', data: { ...media('a'), key: 'logo.png', by: 'u1', now: t1 } })
      .then([stored('a', t1, 'u1', null)]));

  it('replaces bytes, naming the object replaced so it can be removed', () =>
    given([stored('a', t1, 'u1', null)])
      .when({ type: 'StoreMedia', data: { ...media('b'), key: 'logo.png', by: 'u2', now: t2 } })
      .then([stored('b', t2, 'u2', media('a'))]));

  it('keeps who created a key and when across a replacement', () => {
    const s = fold(mediaDecider, [stored('a', t1, 'u1', null), stored('b', t2, 'u2', media('a'))]);
    expect(s).toMatchObject({ exists: true, createdAt: t1, createdBy: 'u1', updatedAt: t2, updatedBy: 'u2' });
    expect(s.exists && s.media.sha256).toBe('b');
  });

  it('deletes a key with the object it names, and refuses to delete what is not there', () => {
    given([stored('a', t1, 'u1', null)])
      .when({ type: 'DeleteMedia', data: { key: 'logo.png', by: 'u1', now: t2 } })
      .then([
        {
          type: 'MediaDeleted',
          data: { key: 'logo.png', objectKey: media('a').objectKey, sha256: 'a', by: 'u1', at: t2 },
        },
      ]);
    given([])
      .when({ type: 'DeleteMedia', data: { key: 'logo.png', by: 'u1', now: t2 } })
      .thenThrows('NOT_FOUND');
  });

  it('records a refusal without changing the key', () => {
    given([stored('a', t1, 'u1', null)])
      .when({ type: 'RecordUploadRefusal', data: { ...refusal, now: t2 } })
      .then([{ type: 'MediaUploadRefused', data: { ...refusal, at: t2 } }]);
    const before = fold(mediaDecider, [stored('a', t1, 'u1', null)]);
    expect(fold(mediaDecider, [{ type: 'MediaUploadRefused', data: { ...refusal, at: t2 } }], before)).toBe(before);
  });
});
