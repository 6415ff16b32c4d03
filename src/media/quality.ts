import sharp from 'sharp';

/** The longer side the sharpness and exposure measurements work at (never enlarged). */
export const MEASURE_SIDE = 512;
/** Grey levels counted as clipped: at most this is pure black, at least 255 minus it pure white. */
const CLIP = 2;

/** What review measures from the pixels. */
export interface ImageQuality {
  /** The image's own size, in pixels. */
  width: number;
  height: number;
  /** Variance of the Laplacian (grey levels²) on the greyscale image scaled to 512 px on its longer side. */
  sharpness: number;
  /** Mean brightness, 0–255. */
  brightness: number;
  /** Share (0–1) of pixels at grey level ≤ 2 (clipped shadows). */
  shadows: number;
  /** Share (0–1) of pixels at grey level ≥ 253 (clipped highlights). */
  highlights: number;
}

/**
 * Variance of the Laplacian, kernel [0,1,0; 1,-4,1; 0,1,0], over the interior pixels of an
 * 8-bit greyscale image: high when there are crisp edges and fine texture, low when blurred.
 */
export function laplacianVariance(grey: Uint8Array, width: number, height: number): number {
  if (width < 3 || height < 3) return 0;
  let sum = 0;
  let sumSquares = 0;
  for (let y = 1; y < height - 1; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const i = row + x;
      const value = grey[i - width] + grey[i + width] + grey[i - 1] + grey[i + 1] - 4 * grey[i];
      sum += value;
      sumSquares += value * value;
    }
  }
  const n = (width - 2) * (height - 2);
  const mean = sum / n;
  return sumSquares / n - mean * mean;
}

/** Mean brightness and the shares of clipped shadows (≤ 2) and highlights (≥ 253) of 8-bit grey pixels. */
export function exposureOf(grey: Uint8Array): { brightness: number; shadows: number; highlights: number } {
  let sum = 0;
  let shadows = 0;
  let highlights = 0;
  for (const value of grey) {
    sum += value;
    if (value <= CLIP) shadows += 1;
    else if (value >= 255 - CLIP) highlights += 1;
  }
  const n = grey.length || 1;
  return { brightness: sum / n, shadows: shadows / n, highlights: highlights / n };
}

/**
 * Measures an encoded image: its size, sharpness and exposure. The pixels are decoded once,
 * flattened onto mid grey (transparent areas count as neither clipped nor edged), turned to
 * greyscale and scaled to at most 512 px on the longer side; both measurements read that.
 */
export async function measureQuality(data: Buffer): Promise<ImageQuality> {
  const meta = await sharp(data).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const { data: grey, info } = await sharp(data)
    .flatten({ background: { r: 128, g: 128, b: 128 } })
    .greyscale()
    .resize({ width: MEASURE_SIDE, height: MEASURE_SIDE, fit: 'inside', withoutEnlargement: true })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width, height, sharpness: laplacianVariance(grey, info.width, info.height), ...exposureOf(grey) };
}
