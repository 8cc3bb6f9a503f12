import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { UploadRefusal } from '../../contracts/files/media.events.ts';
import type { GuardedBytes, UploadEvent } from '../../contracts/files/upload.events.ts';
import { UploadAlreadyUsed, UploadNotFound } from './upload.errors.ts';

export type UploadState =
  | { phase: 'none' }
  | {
      phase: 'authorized' | 'received' | 'registered' | 'refused' | 'expired';
      uploadId: string;
      filename: string;
      mimeType: string;
      size: number;
      by: string;
      expiresAt: string;
      bytes?: GuardedBytes;
      fileId?: string;
    };

export type UploadCommand =
  | {
      type: 'AuthorizeUpload';
      data: {
        uploadId: string;
        filename: string;
        mimeType: string;
        size: number;
        by: string;
        now: string;
        expiresAt: string;
      };
    }
  | { type: 'ReceiveUpload'; data: GuardedBytes & { uploadId: string; now: string } }
  | { type: 'RegisterUpload'; data: { uploadId: string; fileId: string; by: string; now: string } }
  | { type: 'RefuseUpload'; data: Omit<UploadRefusal, 'at'> & { uploadId: string; now: string } }
  | { type: 'ExpireUpload'; data: { uploadId: string; now: string } };

/** An address is used once: bytes arrive once, a file is registered once; a refusal ends it. */
export const uploadDecider: Decider<UploadState, UploadCommand, UploadEvent> = {
  initialState: () => ({ phase: 'none' }),
  evolve(s, e) {
    switch (e.type) {
      case 'UploadAuthorized': {
        const { at: _at, ...d } = e.data;
        return { phase: 'authorized', ...d };
      }
      case 'UploadReceived': {
        if (s.phase === 'none') return s;
        const { uploadId: _id, at: _at, ...bytes } = e.data;
        return { ...s, phase: 'received', bytes };
      }
      case 'UploadRegistered':
        return s.phase === 'none' ? s : { ...s, phase: 'registered', fileId: e.data.fileId };
      case 'UploadRefused':
        return s.phase === 'none' ? s : { ...s, phase: 'refused' };
      case 'UploadExpired':
        return s.phase === 'none' ? s : { ...s, phase: 'expired' };
      default:
        return assertNever(e);
    }
  },
  decide(cmd, s) {
    switch (cmd.type) {
      case 'AuthorizeUpload': {
        const { now, ...data } = cmd.data;
        if (s.phase !== 'none') throw new UploadAlreadyUsed({ uploadId: data.uploadId });
        return [{ type: 'UploadAuthorized', data: { ...data, at: now } }];
      }
      case 'ReceiveUpload': {
        const { now, ...data } = cmd.data;
        if (s.phase === 'none') throw new UploadNotFound({ uploadId: data.uploadId });
        if (s.phase !== 'authorized') throw new UploadAlreadyUsed({ uploadId: data.uploadId });
        return [{ type: 'UploadReceived', data: { ...data, at: now } }];
      }
      case 'RegisterUpload': {
        const { now, ...data } = cmd.data;
        if (s.phase === 'none') throw new UploadNotFound({ uploadId: data.uploadId });
        if (s.phase !== 'authorized' && s.phase !== 'received')
          throw new UploadAlreadyUsed({ uploadId: data.uploadId });
        return [{ type: 'UploadRegistered', data: { ...data, at: now } }];
      }
      case 'RefuseUpload': {
        const { now, ...data } = cmd.data;
        // Another request's bytes passed on this address first: its upload stands, this one found it used.
        if (s.phase === 'received' || s.phase === 'registered')
          throw new UploadAlreadyUsed({ uploadId: data.uploadId });
        return [{ type: 'UploadRefused', data: { ...data, at: now } }];
      }
      case 'ExpireUpload':
        // Only an address still waiting expires; one that ended stays as it ended.
        if (s.phase !== 'authorized' && s.phase !== 'received') return [];
        return [{ type: 'UploadExpired', data: { uploadId: cmd.data.uploadId, at: cmd.data.now } }];
      default:
        return assertNever(cmd);
    }
  },
};
