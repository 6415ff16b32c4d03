import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { usableText } from '../../src/domain/ocr-text.js';
import { createOcr } from '../../src/providers/embedded/alt/ocr.js';
import { createPlaceholderGenerator } from '../../src/providers/embedded/placeholder.js';

const generator = createPlaceholderGenerator();
const SIZE = 512;
/** The generator's font size at SIZE × SIZE, and its line spacing. */
const FONT = Math.round(SIZE / 18);
const LINE = FONT * 1.3;

const draw = async (prompt: string, seed: number) =>
  (
    await generator.generate({
      model: 'placeholder',
      prompt,
      width: SIZE,
      height: SIZE,
      inputs: [],
      index: 0,
      seed,
      options: {},
      signal: new AbortController().signal,
    })
  ).data;

/** WCAG relative luminance of an sRGB pixel. */
function luminance(r: number, g: number, b: number): number {
  const linear = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/**
 * The contrast ratio (WCAG, 1 to 21) of the caption against what is behind it: in the box the
 * lines take (the middle half of the width), the median pixel is the background (glyphs cover
 * far less than half of it) and the text is the extreme farthest from it, light or dark.
 */
async function captionContrast(png: Buffer, lines: number): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const top = Math.round(SIZE / 2 - (lines * LINE) / 2);
  const seen: number[] = [];
  for (let y = top; y < top + lines * LINE; y++) {
    for (let x = SIZE / 4; x < (SIZE * 3) / 4; x++) {
      const p = (y * info.width + x) * 3;
      seen.push(luminance(data[p], data[p + 1], data[p + 2]));
    }
  }
  seen.sort((a, b) => a - b);
  const at = (share: number) => seen[Math.floor(share * (seen.length - 1))] + 0.05;
  return Math.max(at(0.98) / at(0.5), at(0.5) / at(0.02));
}

const ONE_LINE = 'a lighthouse at dawn';
const THREE_LINES = 'a red fox running through fresh snow under a pale winter sky at noon';

test("the image placeholder's caption stands out from the seed's colours on every seed, light hues included (WCAG AA, 4.5:1)", async () => {
  for (const [prompt, lines] of [
    [ONE_LINE, 1],
    [THREE_LINES, 3],
  ] as const) {
    const weakest = { seed: -1, ratio: Infinity };
    for (let seed = 0; seed < 40; seed++) {
      const ratio = await captionContrast(await draw(prompt, seed), lines);
      if (ratio < weakest.ratio) Object.assign(weakest, { seed, ratio });
    }
    assert.ok(weakest.ratio >= 4.5, `"${prompt}", seed ${weakest.seed}: contrast ${weakest.ratio.toFixed(2)}:1`);
  }
});

test('OCR reads the caption word for word, on a yellow, a light green and a dark seed', async (t) => {
  const ocr = createOcr();
  t.after(() => ocr.close());
  // For this prompt, seed 43 draws a yellow field, 12 a light green one and 33 a dark blue one.
  for (const seed of [43, 12, 33]) {
    const read = usableText(await ocr.read(await draw(ONE_LINE, seed)));
    assert.equal(read, ONE_LINE, `seed ${seed}`);
  }
  assert.equal(usableText(await ocr.read(await draw(THREE_LINES, 43))), THREE_LINES, 'three lines, read in order');
});
