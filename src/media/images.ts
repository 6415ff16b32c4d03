import sharp from 'sharp';

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';
export type OutputFormat = 'png' | 'jpg' | 'webp';

/** The image format from the first bytes, never from a name or a header. */
export function sniffImage(data: Uint8Array): ImageFormat | null {
  if (
    data.length >= 8 &&
    data[0] === 0x89 &&
    data[1] === 0x50 &&
    data[2] === 0x4e &&
    data[3] === 0x47 &&
    data[4] === 0x0d &&
    data[5] === 0x0a &&
    data[6] === 0x1a &&
    data[7] === 0x0a
  )
    return 'png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.length >= 12 && ascii(data, 0, 4) === 'RIFF' && ascii(data, 8, 12) === 'WEBP') return 'webp';
  if (data.length >= 6 && (ascii(data, 0, 6) === 'GIF87a' || ascii(data, 0, 6) === 'GIF89a')) return 'gif';
  return null;
}

const ascii = (data: Uint8Array, from: number, to: number) => String.fromCharCode(...data.subarray(from, to));

export class ImageReadError extends Error {}

/**
 * Checks that bytes are a readable image within the pixel limit, without decoding the pixels
 * (the header is enough), so a decompression bomb is refused before it costs memory.
 */
export async function probeImage(
  data: Buffer,
  maxPixels: number,
): Promise<{ format: ImageFormat; width: number; height: number }> {
  const format = sniffImage(data);
  if (!format) throw new ImageReadError('not a PNG, JPEG, WEBP or GIF image');
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(data, { limitInputPixels: maxPixels }).metadata();
  } catch (err) {
    throw new ImageReadError(`the image cannot be read: ${(err as Error).message}`);
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) throw new ImageReadError('the image has no dimensions');
  if (width * height > maxPixels)
    throw new ImageReadError(`the image has ${width * height} pixels, more than the limit of ${maxPixels}`);
  return { format, width, height };
}

/** Encodes any readable image to the requested output format and quality. */
export async function encodeImage(
  data: Buffer,
  format: OutputFormat,
  quality: number,
  maxPixels: number,
): Promise<{ data: Buffer; width: number; height: number }> {
  const pipeline = sharp(data, { limitInputPixels: maxPixels });
  const encoded =
    format === 'png'
      ? pipeline.png({ compressionLevel: 6 })
      : format === 'jpg'
        ? pipeline.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: false })
        : pipeline.webp({ quality });
  const { data: out, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { data: out, width: info.width, height: info.height };
}
