import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { createPreviewPrinter, inlineImageProtocol } from '../../../src/cli/preview-lines.js';

const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
  .jpeg()
  .toBuffer();

test('the inline image protocol: iTerm2 and WezTerm speak iTerm2’s, kitty its own; nothing off a terminal, in tmux or elsewhere', () => {
  assert.equal(inlineImageProtocol({ TERM_PROGRAM: 'iTerm.app' }, true), 'iterm2');
  assert.equal(inlineImageProtocol({ TERM_PROGRAM: 'WezTerm' }, true), 'iterm2');
  assert.equal(inlineImageProtocol({ TERM: 'xterm-kitty' }, true), 'kitty');
  assert.equal(inlineImageProtocol({ TERM_PROGRAM: 'iTerm.app' }, false), undefined, 'not a terminal');
  assert.equal(
    inlineImageProtocol({ TERM: 'xterm-kitty', TMUX: '/tmp/tmux-1/default,1,0' }, true),
    undefined,
    'tmux does not pass images on',
  );
  assert.equal(inlineImageProtocol({ TERM: 'xterm-256color', TERM_PROGRAM: 'Apple_Terminal' }, true), undefined);
});

test('a line per item at most once a second; the image only with a protocol, never bytes otherwise', async () => {
  let now = 0;
  const plain: string[] = [];
  const print = createPreviewPrinter({ write: (text) => plain.push(text), now: () => now });
  await print({ index: 0, mimeType: 'image/jpeg', data: Buffer.alloc(18 * 1024, 1) });
  await print({ index: 0, mimeType: 'image/jpeg', data: jpeg });
  await print({ index: 1, mimeType: 'image/jpeg', data: jpeg });
  now = 1000;
  await print({ index: 0, mimeType: 'image/jpeg', data: jpeg });
  assert.deepEqual(plain, [
    'item 0: preview 18 KB',
    `item 1: preview ${jpeg.length} B`,
    `item 0: preview ${jpeg.length} B`,
  ]);
  assert.ok(
    plain.every((line) => /^[\x20-\x7e]+$/.test(line)),
    'printable text only',
  );

  const iterm: string[] = [];
  await createPreviewPrinter({ write: (text) => iterm.push(text), protocol: 'iterm2' })({
    index: 0,
    mimeType: 'image/jpeg',
    data: jpeg,
  });
  assert.equal(iterm[0], `item 0: preview ${jpeg.length} B`);
  assert.equal(
    iterm[1],
    `\x1b]1337;File=inline=1;size=${jpeg.length};height=8;preserveAspectRatio=1:${jpeg.toString('base64')}\x07`,
  );

  const kitty: string[] = [];
  await createPreviewPrinter({ write: (text) => kitty.push(text), protocol: 'kitty' })({
    index: 0,
    mimeType: 'image/jpeg',
    data: jpeg,
  });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequence is what is checked
  const match = /^\x1b_Ga=T,f=100,r=8,m=0;([A-Za-z0-9+/=]+)\x1b\\$/.exec(kitty[1]);
  assert.ok(match, 'one kitty chunk, a PNG (kitty takes no JPEG)');
  assert.equal((await sharp(Buffer.from(match[1], 'base64')).metadata()).format, 'png');
});
