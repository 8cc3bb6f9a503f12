import sharp, { type Sharp } from 'sharp';
import type { ObjectStorage } from '../../../kernel/storage/object-storage.ts';
import {
  TooManyDerivatives,
  TransformOutputTooLarge,
  TransformsBusy,
  TransformSourceGone,
  TransformSourceTooLarge,
  TransformUnsupported,
} from './transform.errors.ts';
import { MAX_DIMENSION, type Transform } from './transform.params.ts';

/** What a transform reads: the stored original and what the upload guard found about it. */
export interface TransformSource {
  objectKey: string;
  mimeType: string;
  width?: number;
  height?: number;
}

export interface TransformerOptions {
  storage: ObjectStorage;
  /** Transforms running at once (each holds a decoded image). */
  concurrency: number;
  /** Transforms waiting for a slot; past it the request is refused with 503 and Retry-After. */
  queue: number;
  /** Sources with more pixels are refused before a byte is read (and sharp refuses to decode more). */
  maxPixels: number;
  /** Derivatives one original may have from ad-hoc parameters (presets make theirs regardless). */
  maxDerivatives: number;
}

/** Raster types sharp decodes; SVG is never rasterised here (it may name external resources). */
const TRANSFORMABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif']);

/**
 * Makes derivatives: bounded (a semaphore of `concurrency` slots and a waiting line of `queue`), once per derivative
 * at a time (concurrent requests for the same one share the work), written to storage under the derivative's key,
 * which names the original's content hash and the canonical parameters; a derivative that exists is not made again.
 */
export class Transformer {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly opts: TransformerOptions) {}

  /** Makes sure the derivative exists under `derivativeKey` (made now, or already there). */
  async ensure(
    source: TransformSource,
    t: Transform,
    derivativeKey: string,
    budget?: { folder: string },
  ): Promise<void> {
    checkSource(source, this.opts.maxPixels);
    const pending = this.inFlight.get(derivativeKey);
    if (pending) return pending;
    const work = (async () => {
      if (await this.opts.storage.head(derivativeKey)) return;
      // Ad-hoc parameters may not make an image's derivatives without end (each is stored); presets are bounded.
      if (
        budget &&
        (await this.opts.storage.list(budget.folder, { limit: this.opts.maxDerivatives })).length >=
          this.opts.maxDerivatives
      )
        throw new TooManyDerivatives({ max: this.opts.maxDerivatives });
      // Sizes as the image is shown: EXIF orientations 5–8 turn it a quarter, swapping width and height.
      const { upright, known } = await this.upright(source);
      checkOutput(upright, t);
      // Not knowing which way it stands, the transform must fit either way.
      if (!known) checkOutput({ ...upright, width: upright.height, height: upright.width }, t);
      await this.slot(() => this.make(upright, t, derivativeKey));
    })().finally(() => this.inFlight.delete(derivativeKey));
    this.inFlight.set(derivativeKey, work);
    return work;
  }

  private readonly orientations = new Map<string, number>();

  /**
   * The source with the width and height it has once turned upright (the pipeline auto-orients). The orientation
   * is read from the header (the first 256 KB, where EXIF lives) and remembered per object; `known` is false when
   * the header could not be read.
   */
  private async upright(source: TransformSource): Promise<{ upright: TransformSource; known: boolean }> {
    let orientation = this.orientations.get(source.objectKey);
    if (orientation === undefined) {
      const head = await this.opts.storage.get(source.objectKey, { start: 0, end: 256 * 1024 - 1 });
      if (!head) throw new TransformSourceGone();
      const chunks: Buffer[] = [];
      for await (const c of head.body) chunks.push(Buffer.from(c as Uint8Array));
      orientation = await sharp(Buffer.concat(chunks))
        .metadata()
        .then((m) => m.orientation ?? 1)
        .catch(() => 0);
      if (this.orientations.size >= 10_000) this.orientations.delete(this.orientations.keys().next().value!);
      this.orientations.set(source.objectKey, orientation);
    }
    const turned = orientation >= 5 ? { ...source, width: source.height, height: source.width } : source;
    return { upright: turned, known: orientation !== 0 };
  }

  private async slot(run: () => Promise<void>): Promise<void> {
    if (this.running >= this.opts.concurrency) {
      if (this.waiting.length >= this.opts.queue) throw new TransformsBusy({ retryAfter: 2 });
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      await run();
    } finally {
      const next = this.waiting.shift();
      // The slot passes to the next in line, or is freed.
      if (next) next();
      else this.running--;
    }
  }

  private async make(source: TransformSource, t: Transform, derivativeKey: string): Promise<void> {
    const original = await this.opts.storage.get(source.objectKey);
    if (!original) throw new TransformSourceGone();
    const pipeline = sharp({ limitInputPixels: this.opts.maxPixels, failOn: 'error', sequentialRead: true })
      .rotate()
      .timeout({ seconds: 30 });
    applyGeometry(pipeline, source, t);
    applyFormat(pipeline, t);
    let sourceError: Error | undefined;
    let decodeError: Error | undefined;
    pipeline.on('error', (err: Error) => (decodeError ??= err));
    original.body.on('error', (err) => {
      sourceError = err;
      pipeline.destroy(err);
    });
    original.body.pipe(pipeline);
    try {
      await this.opts.storage.put(derivativeKey, pipeline, { contentType: `image/${t.format}` });
    } catch (err) {
      // The original went away while it was read (deleted meanwhile): there is nothing to transform.
      if (sourceError) throw new TransformSourceGone();
      // An image the guard let through that libvips still cannot decode is the file's problem, not the service's.
      if (decodeError && err === decodeError)
        throw new TransformUnsupported({ reason: 'the image could not be decoded' });
      throw err;
    }
  }
}

function checkSource(source: TransformSource, maxPixels: number): void {
  if (!TRANSFORMABLE.has(source.mimeType))
    throw new TransformUnsupported({ reason: `${source.mimeType} is not a raster image this service transforms` });
  if (source.width === undefined || source.height === undefined)
    throw new TransformUnsupported({ reason: 'the image has no known dimensions' });
  if (source.width * source.height > maxPixels)
    throw new TransformSourceTooLarge({ width: source.width, height: source.height, maxPixels });
}

/** The output's size before any pixel is touched: no step may produce more than MAX_DIMENSION either way. */
export function outputSize(source: { width: number; height: number }, t: Transform): { width: number; height: number } {
  const { width: sw, height: sh } = source;
  const w = t.width;
  const h = t.height;
  if (w === undefined && h === undefined) return { width: sw, height: sh };
  if (w === undefined) return { width: Math.round((sw * h!) / sh), height: h! };
  if (h === undefined) return { width: w, height: Math.round((sh * w) / sw) };
  switch (t.fit) {
    case 'cover':
    case 'fill':
      return { width: w, height: h };
    case 'contain':
      return { width: w, height: h };
    case 'inside': {
      const s = Math.min(w / sw, h / sh);
      return { width: Math.round(sw * s), height: Math.round(sh * s) };
    }
    case 'outside': {
      const s = Math.max(w / sw, h / sh);
      return { width: Math.round(sw * s), height: Math.round(sh * s) };
    }
  }
}

function checkOutput(source: TransformSource, t: Transform): void {
  const out = outputSize({ width: source.width!, height: source.height! }, t);
  // cover with a focal point resizes to cover first, then cuts: that intermediate size counts too.
  const cover =
    t.fit === 'cover' && t.width !== undefined && t.height !== undefined
      ? outputSize({ width: source.width!, height: source.height! }, { ...t, fit: 'outside' })
      : out;
  const largest = Math.max(out.width, out.height, cover.width, cover.height);
  if (largest > MAX_DIMENSION) throw new TransformOutputTooLarge({ ...out, max: MAX_DIMENSION });
}

function applyGeometry(p: Sharp, source: TransformSource, t: Transform): void {
  if (t.width === undefined && t.height === undefined) return;
  if (t.fit === 'cover' && t.focal && t.width !== undefined && t.height !== undefined) {
    // Cover around the focal point: resize to cover the box, then cut the box centred on the point (clamped).
    const big = outputSize({ width: source.width!, height: source.height! }, { ...t, fit: 'outside' });
    const left = clamp(Math.round(t.focal.x * big.width - t.width / 2), 0, big.width - t.width);
    const top = clamp(Math.round(t.focal.y * big.height - t.height / 2), 0, big.height - t.height);
    p.resize(big.width, big.height, { fit: 'fill' }).extract({ left, top, width: t.width, height: t.height });
    return;
  }
  p.resize(t.width ?? null, t.height ?? null, { fit: t.fit });
}

function applyFormat(p: Sharp, t: Transform): void {
  const quality = t.quality;
  if (t.format === 'jpeg') p.jpeg({ quality, mozjpeg: true });
  else if (t.format === 'png') p.png();
  else if (t.format === 'webp') p.webp({ quality });
  else p.avif({ quality });
}

const clamp = (n: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, n));
