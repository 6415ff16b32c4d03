import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { ProviderError, TASK_ERROR_CODES, type TaskErrorCode } from '../../domain/task-status.js';
import type { GeneratedImage, GenerateParams, ImageGenerator } from '../provider-types.js';
import { svgText } from './svg-text.js';

/** Splits text into at most `maxLines` lines of about `width` characters. */
function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (`${line} ${word}`.trim().length > width && line) {
      lines.push(line);
      line = '';
      if (lines.length === maxLines) break;
    }
    line = `${line} ${word}`.trim();
  }
  if (line && lines.length < maxLines) lines.push(line);
  return lines;
}

/** Line spacing of the caption, in font sizes; and the band's margin above and below it. */
const LINE_HEIGHT = 1.3;
const BAND_MARGIN = 0.5;

/**
 * The prompt's lines, centred, in near-black on a light band across the image: white text on
 * the seed's colours alone could not be read on its light hues, by people or by OCR (review's
 * text checks). The band spans the width, so no text width is guessed; it lets a little of the
 * colours through.
 */
function caption(lines: string[], height: number, fontSize: number): string {
  if (lines.length === 0) return '';
  const lineY = (i: number) => Math.round(height / 2 + (i - (lines.length - 1) / 2) * fontSize * LINE_HEIGHT);
  const bandHeight = Math.round((lines.length * LINE_HEIGHT + 2 * BAND_MARGIN) * fontSize);
  const band = `<rect x="0" y="${Math.round(height / 2 - bandHeight / 2)}" width="100%" height="${bandHeight}" fill="white" fill-opacity="0.85"/>`;
  const text = lines.map(
    (line, i) =>
      `<text x="50%" y="${lineY(i)}" font-family="DejaVu Sans, sans-serif" font-size="${fontSize}" fill="#111" text-anchor="middle" dominant-baseline="middle">${svgText(line)}</text>`,
  );
  return band + text.join('');
}

const failOption = (options: Record<string, unknown>): { code: TaskErrorCode; every: number } | null => {
  const fail = options.fail as { code?: string; every?: number } | undefined;
  if (!fail || typeof fail.every !== 'number' || fail.every < 1) return null;
  const code = (TASK_ERROR_CODES as readonly string[]).includes(fail.code ?? '')
    ? (fail.code as TaskErrorCode)
    : 'PROVIDER_ERROR';
  return { code, every: fail.every };
};

/**
 * What the picture is drawn from: the prompts and the item's seed (its index when it has none).
 * The seed already counts the index (request seed + index), so two items of one task differ and
 * the same seed makes the same picture in any task.
 */
export const placeholderHash = (params: Pick<GenerateParams, 'prompt' | 'negativePrompt' | 'index' | 'seed'>): Buffer =>
  createHash('sha256')
    .update(
      `${params.prompt}\n${params.negativePrompt ?? ''}\n${params.seed === undefined ? params.index : `seed ${params.seed}`}`,
    )
    .digest();

/**
 * The embedded development generator: a deterministic image drawn from the prompt (colours
 * from its hash, the prompt as a caption, input images composited as thumbnails). Same prompt,
 * size, inputs and seed, same bytes. `options.fail = { code, every }` makes every Nth image fail
 * with that code, so item failures can be exercised end to end. Progress is reported at each
 * stage of the drawing (a quarter per stage): it costs a function call.
 */
export function createPlaceholderGenerator(): ImageGenerator {
  return {
    async generate(params: GenerateParams): Promise<GeneratedImage> {
      const fail = failOption(params.options);
      if (fail && (params.index + 1) % fail.every === 0)
        throw new ProviderError(fail.code, `placeholder: image ${params.index + 1} fails by options.fail`);
      const { width, height, onProgress } = params;
      const hash = placeholderHash(params);
      const hue = (hash[0] * 360) / 256;
      const hue2 = (hue + 40 + (hash[1] % 140)) % 360;
      const fontSize = Math.max(12, Math.round(Math.min(width, height) / 18));
      const text = caption(wrap(params.prompt, Math.max(8, Math.floor(width / (fontSize * 0.6))), 6), height, fontSize);
      onProgress?.(0.25);
      const thumb = Math.round(Math.min(width, height) / 5);
      const thumbs = await Promise.all(
        params.inputs.slice(0, 4).map(async (input, i) => {
          const png = await sharp(input.data).resize(thumb, thumb, { fit: 'cover' }).png().toBuffer();
          return `<image x="${Math.round(thumb * 0.2 + i * thumb * 1.1)}" y="${Math.round(height - thumb * 1.2)}" width="${thumb}" height="${thumb}" href="data:image/png;base64,${png.toString('base64')}"/>`;
        }),
      );
      onProgress?.(0.5);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},65%,45%)"/><stop offset="1" stop-color="hsl(${hue2},70%,30%)"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>
<circle cx="${Math.round(width * (0.2 + (hash[2] / 255) * 0.6))}" cy="${Math.round(height * (0.2 + (hash[3] / 255) * 0.6))}" r="${Math.round(Math.min(width, height) * (0.1 + (hash[4] / 255) * 0.2))}" fill="hsl(${(hue + 180) % 360},60%,60%)" fill-opacity="0.5"/>
${text}${thumbs.join('')}</svg>`;
      onProgress?.(0.75);
      // Rendered to PNG at once: the worker re-encodes to the requested format.
      const data = await sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer();
      onProgress?.(1);
      return { data };
    },
  };
}
