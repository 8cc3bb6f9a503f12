import type { DomainEvent } from '../../kernel/es/event.ts';

/** What the service keeps about one stored object: where its bytes are and what the upload guard found. */
export interface StoredMedia {
  /** The object's key in the storage (content-addressed under the site: a new body gets a new key). */
  objectKey: string;
  size: number;
  mimeType: string;
  extension: string;
  /** Hex sha256 of the bytes. */
  sha256: string;
  width?: number;
  height?: number;
}

/** Bytes passed the upload guard and were stored under a media key (first time or replacing). */
export type MediaStored = DomainEvent<
  'MediaStored',
  StoredMedia & { key: string; by: string; at: string; replaced: StoredMedia | null }
>;
/** A media key and its bytes were deleted. */
export type MediaDeleted = DomainEvent<
  'MediaDeleted',
  { key: string; objectKey: string; sha256: string; by: string; at: string }
>;
/** The upload guard refused bytes sent for a media key (an audit event; nothing was stored). */
export type MediaUploadRefused = DomainEvent<'MediaUploadRefused', UploadRefusal & { key: string }>;

/** Why and what the upload guard refused, as every upload surface records it. */
export interface UploadRefusal {
  code: string;
  message: string;
  filename: string;
  declaredMimeType: string;
  /** Bytes read before the refusal (at most the cap plus one chunk). */
  bytesRead: number;
  by: string;
  at: string;
}

export type MediaEvent = MediaStored | MediaDeleted | MediaUploadRefused;

export const mediaStream = (siteId: string, key: string) => `${siteId}/media/${key}`;
