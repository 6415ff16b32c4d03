/** Aspect ratios, as width:height (docs/api/images.md#generate-post-imagegenerate). */
export const ASPECT_RATIOS = [
  '1:1',
  '2:3',
  '3:2',
  '3:4',
  '4:3',
  '4:5',
  '5:4',
  '9:16',
  '16:9',
  '21:9',
  '2:1',
  '1:2',
] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** Named presets and the ratio each stands for. */
const NAMED_SIZES = {
  square: '1:1',
  portrait: '3:4',
  landscape: '4:3',
  portrait_tall: '9:16',
  landscape_wide: '16:9',
} as const satisfies Record<string, AspectRatio>;

export const SIZE_PRESETS: [string, ...string[]] = [
  'auto',
  ...Object.keys(NAMED_SIZES),
  ...ASPECT_RATIOS,
  ...ASPECT_RATIOS.map((r) => `${r}_4k`),
];

export type Scale = 'base' | '4k';
export type SizeRequest = string | { type: 'aspect_ratio'; aspectRatio: AspectRatio; scale?: Scale } | { type: 'auto' };
export type ResolvedSize = { kind: 'auto' } | { kind: 'ratio'; ratio: AspectRatio; scale: Scale };

/** Reads any accepted size value as either "auto" or a ratio at a scale. */
export function normalizeSize(size: SizeRequest | undefined): ResolvedSize {
  if (size === undefined || size === 'auto') return { kind: 'auto' };
  if (typeof size === 'object')
    return size.type === 'auto'
      ? { kind: 'auto' }
      : { kind: 'ratio', ratio: size.aspectRatio, scale: size.scale ?? 'base' };
  if (size in NAMED_SIZES)
    return { kind: 'ratio', ratio: NAMED_SIZES[size as keyof typeof NAMED_SIZES], scale: 'base' };
  if (size.endsWith('_4k')) return { kind: 'ratio', ratio: size.slice(0, -3) as AspectRatio, scale: '4k' };
  return { kind: 'ratio', ratio: size as AspectRatio, scale: 'base' };
}

const STEP = 16;
const round = (value: number) => Math.max(STEP, Math.round(value / STEP) * STEP);

/**
 * Pixels for a ratio: at `base`, about one megapixel (1024² area) in multiples of 16 (so
 * also of 8, as diffusion models need), the budget such models are trained at; at `4k`, a
 * long side of 4096.
 */
export function dimensionsFor(ratio: AspectRatio, scale: Scale): { width: number; height: number } {
  const [w, h] = ratio.split(':').map(Number);
  const r = Math.max(w, h) / Math.min(w, h);
  // Worked out for the landscape orientation, then transposed, so 3:4 is 4:3 turned.
  const short = scale === '4k' ? round(4096 / r) : round(Math.sqrt((1024 * 1024) / r));
  const long = scale === '4k' ? 4096 : round(short * r);
  return w >= h ? { width: long, height: short } : { width: short, height: long };
}

export const sizeText = (width: number, height: number): string => `${width}x${height}`;

export function parseSizeText(text: string): { width: number; height: number } | null {
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(text);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
}
