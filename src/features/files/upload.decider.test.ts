import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { uploadDecider, type UploadCommand } from './upload.decider.ts';
import type { UploadEvent } from '../../contracts/files/upload.events.ts';

const given = deciderSpec(uploadDecider);
const t1 = '2026-03-01T10:00:00.000Z';
const t2 = '2026-03-01T10:01:00.000Z';
const expiresAt = '2026-03-01T11:00:00.000Z';
const uploadId = 'up1';
const asked = { uploadId, filename: 'cat.png', mimeType: 'image/png', size: 1234, by: 'u1' };
const bytes = { size: 1234, sha256: 'ab'.repeat(32), mimeType: 'image/png', extension: 'png', width: 64, height: 48 };
const refusal = {
  code: 'UPLOAD_TYPE_MISMATCH',
  message: 'the content is not image/png',
  filename: 'cat.png',
  declaredMimeType: 'image/png',
  bytesRead: 512,
  by: 'u1',
};

const authorize: UploadCommand = { type: 'AuthorizeUpload', data: { ...asked, now: t1, expiresAt } };
const receive: UploadCommand = { type: 'ReceiveUpload', data: { ...bytes, uploadId, now: t2 } };
const register: UploadCommand = { type: 'RegisterUpload', data: { uploadId, fileId: 'f1', by: 'u1', now: t2 } };
const refuse: UploadCommand = { type: 'RefuseUpload', data: { ...refusal, uploadId, now: t2 } };
const expire: UploadCommand = { type: 'ExpireUpload', data: { uploadId, now: t2 } };

const authorized: UploadEvent = { type: 'UploadAuthorized', data: { ...asked, at: t1, expiresAt } };
const received: UploadEvent = { type: 'UploadReceived', data: { ...bytes, uploadId, at: t2 } };
const registered: UploadEvent = { type: 'UploadRegistered', data: { uploadId, fileId: 'f1', by: 'u1', at: t2 } };
const refused: UploadEvent = { type: 'UploadRefused', data: { ...refusal, uploadId, at: t2 } };
const expired: UploadEvent = { type: 'UploadExpired', data: { uploadId, at: t2 } };

describe('Upload', () => {
  describe('when unknown', () => {
    it('authorizes an address', () => given([]).when(authorize).then([authorized]));
    it('rejects bytes with NOT_FOUND', () => given([]).when(receive).thenThrows('NOT_FOUND'));
    it('rejects a register with NOT_FOUND', () => given([]).when(register).thenThrows('NOT_FOUND'));
    it('records a refusal of bytes that came without an address', () => given([]).when(refuse).then([refused]));
    it('expires without a new event', () => given([]).when(expire).then([]));
  });

  describe('when authorized', () => {
    it('rejects a second authorization with CONFLICT', () =>
      given([authorized]).when(authorize).thenThrows('CONFLICT'));
    it('receives the bytes', () => given([authorized]).when(receive).then([received]));
    it('registers the file', () => given([authorized]).when(register).then([registered]));
    it('records a refusal', () => given([authorized]).when(refuse).then([refused]));
    it('expires', () => given([authorized]).when(expire).then([expired]));
  });

  describe('when received', () => {
    const past = [authorized, received];
    it('rejects bytes again with CONFLICT', () => given(past).when(receive).thenThrows('CONFLICT'));
    it('registers the file', () => given(past).when(register).then([registered]));
    it('expires when never registered', () => given(past).when(expire).then([expired]));
    it('rejects a refusal of another request on the used address with CONFLICT, keeping these bytes', () =>
      given(past).when(refuse).thenThrows('CONFLICT'));
  });

  describe.each([
    { phase: 'registered', past: [authorized, received, registered] },
    { phase: 'refused', past: [authorized, refused] },
    { phase: 'expired', past: [authorized, expired] },
  ])('when $phase', ({ past }) => {
    it('rejects a second authorization with CONFLICT', () => given(past).when(authorize).thenThrows('CONFLICT'));
    it('rejects bytes with CONFLICT', () => given(past).when(receive).thenThrows('CONFLICT'));
    it('rejects a register with CONFLICT', () => given(past).when(register).thenThrows('CONFLICT'));
    it('stays as it ended when the sweep comes', () => given(past).when(expire).then([]));
  });

  it('rejects a refusal of another request once the file is registered with CONFLICT', () =>
    given([authorized, received, registered]).when(refuse).thenThrows('CONFLICT'));

  describe('evolve', () => {
    it('keeps what the guard found in the bytes and the file they became', () =>
      expect(fold(uploadDecider, [authorized, received, registered])).toEqual({
        phase: 'registered',
        ...asked,
        expiresAt,
        bytes,
        fileId: 'f1',
      }));
    it('stays unknown after a refusal without an address', () =>
      expect(fold(uploadDecider, [refused])).toEqual({ phase: 'none' }));
  });

  const commandArb = fc.constantFrom(authorize, receive, register, refuse, expire);

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 15 }), (commands) => {
        const { state, events } = runCommands(uploadDecider, commands);
        expect(fold(uploadDecider, events)).toEqual(state);
      }),
    ));

  it('uses an address once: bytes arrive once, a file is registered once, nothing after it ends', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 15 }), (commands) => {
        const types = runCommands(uploadDecider, commands).events.map((e) => e.type);
        expect(types.filter((t) => t === 'UploadAuthorized').length).toBeLessThanOrEqual(1);
        expect(types.filter((t) => t === 'UploadReceived').length).toBeLessThanOrEqual(1);
        expect(types.filter((t) => t === 'UploadRegistered').length).toBeLessThanOrEqual(1);
        // Nothing after a registration (another request's refusal included); after an expiry, only refusals.
        const registeredAt = types.indexOf('UploadRegistered');
        if (registeredAt >= 0) expect(types.slice(registeredAt + 1)).toEqual([]);
        const expiredAt = types.indexOf('UploadExpired');
        if (expiredAt >= 0) expect(types.slice(expiredAt + 1).filter((t) => t !== 'UploadRefused')).toEqual([]);
      }),
    ));
});
