import type { VideoModelConfig } from '../config/schema.js';
import { type AspectRatio, dimensionsFor, normalizeSize, parseSizeText, type SizeRequest } from '../domain/sizes.js';

/** Even, at least 16: H.264 with 4:2:0 chroma needs even sides. */
const even = (value: number) => Math.max(16, Math.floor(value / 2) * 2);

/**
 * The frame size of a video request: `auto` is the model's native size; a preset or ratio is
 * its image size (about one megapixel) scaled down, keeping the ratio, until it fits the
 * model's largest frame (maxSize bounds the landscape orientation; its transpose the
 * portrait one).
 */
export function videoDimensions(
  size: SizeRequest,
  capabilities: VideoModelConfig['capabilities'],
): { width: number; height: number } {
  const native = parseSizeText(capabilities.nativeSize)!;
  const resolved = normalizeSize(size);
  if (resolved.kind === 'auto') return { width: even(native.width), height: even(native.height) };
  const max = parseSizeText(capabilities.maxSize)!;
  const { width, height } = dimensionsFor(resolved.ratio as AspectRatio, 'base');
  const [maxLong, maxShort] = [Math.max(max.width, max.height), Math.min(max.width, max.height)];
  const scale = Math.min(1, maxLong / Math.max(width, height), maxShort / Math.min(width, height));
  return { width: even(width * scale), height: even(height * scale) };
}
