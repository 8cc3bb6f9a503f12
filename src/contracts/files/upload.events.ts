import type { DomainEvent } from '../../kernel/es/event.ts';
import type { UploadRefusal } from './media.events.ts';

/** What the guard found in bytes it let through (kept until the file is registered). */
export interface GuardedBytes {
  size: number;
  sha256: string;
  mimeType: string;
  extension: string;
  width?: number;
  height?: number;
}

/** An upload address was handed out: for these bytes (name, type, size), to this person, until then. */
export type UploadAuthorized = DomainEvent<
  'UploadAuthorized',
  { uploadId: string; filename: string; mimeType: string; size: number; by: string; at: string; expiresAt: string }
>;
/** The bytes arrived at the service's own upload address and passed the guard (single use). */
export type UploadReceived = DomainEvent<'UploadReceived', GuardedBytes & { uploadId: string; at: string }>;
/** The upload became a file record. */
export type UploadRegistered = DomainEvent<
  'UploadRegistered',
  { uploadId: string; fileId: string; by: string; at: string }
>;
/** The guard refused the upload's bytes; nothing of them was kept. */
export type UploadRefused = DomainEvent<'UploadRefused', UploadRefusal & { uploadId: string }>;

/** The address expired unused (or its bytes were never registered): the sweep removed what it had kept. */
export type UploadExpired = DomainEvent<'UploadExpired', { uploadId: string; at: string }>;

export type UploadEvent = UploadAuthorized | UploadReceived | UploadRegistered | UploadRefused | UploadExpired;

export const uploadStream = (siteId: string, uploadId: string) => `${siteId}/upload/${uploadId}`;
