import sharp from 'sharp';
import { usableText } from '../../../domain/ocr-text.js';
import type { AltTextWriter, SourceImage, TextReader } from '../../provider-types.js';
import { colourName } from './colour-names.js';
import { createOcr } from './ocr.js';

/** What can be said of an image without a vision model. */
export interface ImageTraits {
  kind: 'photo' | 'drawing';
  orientation: 'landscape' | 'portrait' | 'square';
  colours: string[];
  text: string | null;
}

const SAMPLE = 128;
/** Distinct colours (4 bits per channel) past which an image counts as a photo. */
const PHOTO_COLOURS = 150;

/**
 * Photo or drawing: drawings, graphics and text use few distinct colours (flat fills, 15–65
 * here); photos, with their texture and noise, use hundreds. Counted on a 128×128 sample taken
 * with nearest-neighbour scaling (averaging would smooth the texture away), 4 bits per channel.
 */
async function traits(image: SourceImage): Promise<Omit<ImageTraits, 'text'>> {
  const ratio = image.width / image.height;
  const orientation = ratio > 1.15 ? 'landscape' : ratio < 0.87 ? 'portrait' : 'square';
  const small = await sharp(image.data)
    .removeAlpha()
    .resize(SAMPLE, SAMPLE, { fit: 'fill', kernel: 'nearest' })
    .raw()
    .toBuffer();
  const bins = new Set<number>();
  const names = new Map<string, number>();
  for (let i = 0; i < small.length; i += 3) {
    bins.add(((small[i] >> 4) << 8) | ((small[i + 1] >> 4) << 4) | (small[i + 2] >> 4));
    const name = colourName(small[i], small[i + 1], small[i + 2]);
    names.set(name, (names.get(name) ?? 0) + 1);
  }
  // Colours covering at least 12% of the image, most common first, at most two.
  const colours = [...names]
    .filter(([, count]) => count >= SAMPLE * SAMPLE * 0.12)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([name]) => name);
  return { kind: bins.size > PHOTO_COLOURS ? 'photo' : 'drawing', orientation, colours };
}

/** OCR text worth quoting (usableText), cut to at most 80 characters on a word. */
function quotableText(result: { text: string; confidence: number }): string | null {
  const text = usableText(result);
  if (text === null) return null;
  return text.length > 80 ? `${text.slice(0, 77).replace(/\s\S*$/, '')}…` : text;
}

export function describeTraits(t: ImageTraits): string {
  const colours =
    t.colours.length === 2
      ? `mostly ${t.colours[0]} and ${t.colours[1]}`
      : t.colours.length === 1
        ? `mostly ${t.colours[0]}`
        : 'in many colours';
  const kind = t.kind === 'photo' ? 'photo' : 'drawing or graphic';
  const base = `A ${t.orientation} ${kind}, ${colours}`;
  return t.text ? `${base}, with the text "${t.text}".` : `${base}.`;
}

/**
 * Basic alt text, computed locally: photo or drawing, orientation, dominant colours, and the
 * text in the image when OCR reads it with confidence. For real descriptions, configure a
 * vision provider (`providers.vision`), which replaces this one.
 */
export function createBasicAltWriter(
  options: { ocr?: boolean } = {},
): AltTextWriter &
  TextReader & { traits(image: SourceImage): Promise<ImageTraits>; warmUp(): Promise<void>; close(): Promise<void> } {
  const ocr = options.ocr === false ? null : createOcr();
  async function readText(image: SourceImage): Promise<{ text: string; confidence: number }> {
    if (!ocr) return { text: '', confidence: 0 };
    // OCR works best on a moderate size; bigger images only cost time.
    const png = await sharp(image.data)
      .resize({ width: 1600, height: 1600, fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
    return ocr.read(png);
  }
  async function allTraits(image: SourceImage): Promise<ImageTraits> {
    const visual = await traits(image);
    return { ...visual, text: ocr ? quotableText(await readText(image)) : null };
  }
  return {
    traits: allTraits,
    async describe(image) {
      return describeTraits(await allTraits(image));
    },
    /** The raw OCR reading (review's text checks); empty when OCR is off. */
    read: (image) => readText(image),
    /** Loads the OCR model now (a preload at start); without OCR there is nothing to load. */
    warmUp: async () => ocr?.warmUp(),
    close: async () => ocr?.close(),
  };
}
