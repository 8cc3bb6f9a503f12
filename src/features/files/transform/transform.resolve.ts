import type { AppDeps } from '../../../deps.ts';
import { presetByKey } from './preset.commands.ts';
import { UnknownPreset } from './transform.errors.ts';
import {
  DEFAULT_QUALITY,
  resolveFormat,
  TransformDsl,
  type Transform,
  type TransformQuery,
  type TransformSpec,
} from './transform.params.ts';

/**
 * The transform a request asks for, every choice made: the preset's parameters under the query's own, `format=auto`
 * by the Accept header, quality 80, fit `cover`; a focal point (the query's, else the file's) only where it
 * decides something (cover with both sides given).
 */
export async function resolveTransform(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  query: TransformQuery,
  accept: string,
  source: { mimeType: string; focal?: { x: number; y: number } },
): Promise<Transform> {
  const { preset, ...own } = query;
  let spec: TransformSpec = own;
  if (preset !== undefined) {
    const saved = await presetByKey(deps, siteId, preset);
    if (!saved) throw new UnknownPreset({ key: preset });
    // Saved DSLs were checked when saved; a preset from before a rule change is read leniently.
    const parsed = TransformDsl.safeParse(saved.dsl);
    spec = { ...(parsed.success ? parsed.data : {}), ...own };
  }
  const fit = spec.fit ?? 'cover';
  const focal = spec.focal ?? source.focal;
  const decides = fit === 'cover' && spec.width !== undefined && spec.height !== undefined;
  return {
    ...(spec.width !== undefined ? { width: spec.width } : {}),
    ...(spec.height !== undefined ? { height: spec.height } : {}),
    fit,
    format: resolveFormat(spec.format, accept, source.mimeType),
    quality: spec.quality ?? DEFAULT_QUALITY,
    ...(decides && focal ? { focal } : {}),
  };
}
