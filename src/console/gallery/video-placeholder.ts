import sharp from 'sharp';

/** A dark 16:9 tile with a play sign: shown for a video whose poster frame cannot be made. */
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360" viewBox="0 0 640 360">
<rect width="640" height="360" fill="#15233b"/>
<circle cx="320" cy="180" r="64" fill="none" stroke="#ffffff" stroke-width="8"/>
<path d="M296 144 L368 180 L296 216 Z" fill="#ffffff"/>
</svg>`;

let drawn: Promise<Buffer> | undefined;

/** The placeholder as WebP, drawn once per process. */
export function videoPlaceholder(): Promise<Buffer> {
  drawn ??= sharp(Buffer.from(SVG)).webp({ quality: 80 }).toBuffer();
  return drawn;
}
