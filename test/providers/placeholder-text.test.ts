import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { createPlaceholderGenerator } from '../../src/providers/embedded/placeholder.js';
import { placeholderFrames } from '../../src/providers/embedded/placeholder-video.js';

/**
 * The placeholders draw the prompt as SVG text. Whatever a prompt holds (the API refuses control
 * characters, but a magic prompt or a caller inside the process may not), drawing never fails:
 * what XML 1.0 cannot hold is left out, markup characters are escaped.
 */
const HOSTILE = [
  'bell\u0007 and escape\u001b',
  'nul\u0000 inside',
  'vertical\u000btab and form\u000cfeed',
  'noncharacters \uFFFE\uFFFF',
  'a lone surrogate \uD800 and another \uDC00',
  '<svg> & "quotes" \'single\' ]]> <!-- -->',
];

test('the image placeholder draws any prompt, control characters and noncharacters included', async () => {
  const generator = createPlaceholderGenerator();
  for (const prompt of HOSTILE) {
    const made = await generator.generate({
      model: 'placeholder',
      prompt,
      negativePrompt: `not ${prompt}`,
      width: 64,
      height: 64,
      index: 0,
      inputs: [],
      options: {},
      signal: new AbortController().signal,
    });
    const meta = await sharp(made.data).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 64, 64], JSON.stringify(prompt));
  }
});

test('the video placeholder draws any prompt, control characters and noncharacters included', async () => {
  for (const prompt of HOSTILE) {
    const frames = await placeholderFrames({
      prompt,
      width: 64,
      height: 36,
      durationS: 1,
      fps: 2,
      index: 0,
      signal: new AbortController().signal,
    });
    assert.equal([...frames].length, 2, JSON.stringify(prompt));
  }
});
