import { defineError } from '../../../kernel/http/errors.ts';

/** Every transform slot is busy and the waiting line is full: come back after Retry-After. */
export const TransformsBusy = defineError<{ retryAfter: number }>(
  'SERVICE_UNAVAILABLE',
  'unavailable',
  () => 'image transforms are busy; retry shortly',
  (d) => ({ headers: { 'retry-after': String(d.retryAfter) } }),
);

/** The original is not an image this service transforms (or its bytes are gone). */
export const TransformUnsupported = defineError<{ reason: string }>(
  'TRANSFORM_UNSUPPORTED',
  'unprocessable',
  (d) => `this file cannot be transformed: ${d.reason}`,
);

/** The original's bytes are gone (deleted while the transform started). */
export const TransformSourceGone = defineError(
  'NOT_FOUND',
  'not_found',
  () => 'the original of this transform is gone',
);

/** The original has more pixels than a transform may decode; refused before its bytes are read. */
export const TransformSourceTooLarge = defineError<{ width: number; height: number; maxPixels: number }>(
  'TRANSFORM_SOURCE_TOO_LARGE',
  'unprocessable',
  (d) => `the image has ${d.width} × ${d.height} pixels, over the transform limit of ${d.maxPixels}`,
  (d) => ({ extensions: { width: d.width, height: d.height, maxPixels: d.maxPixels } }),
);

/** The parameters would produce (or pass through) an image wider or taller than the limit. */
export const TransformOutputTooLarge = defineError<{ width: number; height: number; max: number }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `the transform would make a ${d.width} × ${d.height} image; each side is at most ${d.max}`,
  () => ({ path: ['query', 'fit'] }),
);

/** `preset=<key>` names no preset of the site. */
export const UnknownPreset = defineError<{ key: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `no transform preset ${JSON.stringify(d.key)} on this site`,
  () => ({ path: ['query', 'preset'] }),
);

/** A preset id that names nothing. */
export const PresetNotFound = defineError<{ id: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `no transform preset ${d.id}`,
  () => ({ path: ['id'] }),
);

/** Preset keys are unique per site. */
export const PresetKeyTaken = defineError<{ key: string }>(
  'CONFLICT',
  'conflict',
  (d) => `a transform preset with key ${JSON.stringify(d.key)} exists already`,
  () => ({ path: ['key'] }),
);

/** The original has as many derivatives as ad-hoc parameters may make; sizes it has, and presets, still work. */
export const TooManyDerivatives = defineError<{ max: number }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) =>
    `this image has ${d.max} derivatives already, the most ad-hoc parameters may make; ask for one it has, or use a preset`,
  () => ({ path: ['query'] }),
);
