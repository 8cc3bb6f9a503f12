import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { MediaEvent, StoredMedia, UploadRefusal } from '../../contracts/files/media.events.ts';
import { MediaNotFound } from './media.errors.ts';

export type MediaState =
  | { exists: false }
  | { exists: true; media: StoredMedia; createdAt: string; createdBy: string; updatedAt: string; updatedBy: string };

export type MediaCommand =
  | { type: 'StoreMedia'; data: StoredMedia & { key: string; by: string; now: string } }
  | { type: 'DeleteMedia'; data: { key: string; by: string; now: string } }
  | { type: 'RecordUploadRefusal'; data: Omit<UploadRefusal, 'at'> & { key: string; now: string } };

export const mediaDecider: Decider<MediaState, MediaCommand, MediaEvent> = {
  initialState: () => ({ exists: false }),
  evolve(s, e) {
    switch (e.type) {
      case 'MediaStored': {
        const { key: _key, by, at, replaced: _replaced, ...media } = e.data;
        return s.exists
          ? { ...s, media, updatedAt: at, updatedBy: by }
          : { exists: true, media, createdAt: at, createdBy: by, updatedAt: at, updatedBy: by };
      }
      case 'MediaDeleted':
        return { exists: false };
      case 'MediaUploadRefused':
        return s;
      default:
        return assertNever(e);
    }
  },
  decide(cmd, s) {
    switch (cmd.type) {
      case 'StoreMedia': {
        const { now, ...data } = cmd.data;
        return [{ type: 'MediaStored', data: { ...data, at: now, replaced: s.exists ? s.media : null } }];
      }
      case 'DeleteMedia':
        if (!s.exists) throw new MediaNotFound({ key: cmd.data.key });
        return [
          {
            type: 'MediaDeleted',
            data: {
              key: cmd.data.key,
              objectKey: s.media.objectKey,
              sha256: s.media.sha256,
              by: cmd.data.by,
              at: cmd.data.now,
            },
          },
        ];
      case 'RecordUploadRefusal': {
        const { now, ...data } = cmd.data;
        return [{ type: 'MediaUploadRefused', data: { ...data, at: now } }];
      }
      default:
        return assertNever(cmd);
    }
  },
};
