import type { TaskPreview } from '../client/task-events.js';

/** The least time between two preview lines (and images) of one item. */
export const PREVIEW_LINE_INTERVAL_MS = 1000;
/** How many terminal rows an inline preview takes. */
const IMAGE_ROWS = 8;

/**
 * The inline image protocol the terminal speaks, if any: iTerm2's (iTerm2, WezTerm) or kitty's; none inside tmux or
 * screen, which do not pass them on.
 */
export function inlineImageProtocol(
  env: { TERM?: string; TERM_PROGRAM?: string; TMUX?: string; STY?: string },
  isTTY: boolean,
): 'iterm2' | 'kitty' | undefined {
  if (!isTTY || env.TMUX || env.STY) return undefined;
  if (env.TERM_PROGRAM === 'iTerm.app' || env.TERM_PROGRAM === 'WezTerm') return 'iterm2';
  if (env.TERM === 'xterm-kitty') return 'kitty';
  return undefined;
}

const sizeOf = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${Math.round(bytes / 1024)} KB`);

/** iTerm2's OSC 1337 inline file: any image type it reads (JPEG, PNG), IMAGE_ROWS tall. */
const iterm2Image = (data: Buffer) =>
  `\x1b]1337;File=inline=1;size=${data.length};height=${IMAGE_ROWS};preserveAspectRatio=1:${data.toString('base64')}\x07`;

/** kitty's graphics protocol: PNG only (f=100), sent in chunks of at most 4096 base64 characters, IMAGE_ROWS tall. */
function kittyImage(png: Buffer): string {
  const base64 = png.toString('base64');
  const chunks: string[] = [];
  for (let at = 0; at < base64.length; at += 4096) {
    const more = at + 4096 < base64.length ? 1 : 0;
    chunks.push(`\x1b_G${at === 0 ? `a=T,f=100,r=${IMAGE_ROWS},` : ''}m=${more};${base64.slice(at, at + 4096)}\x1b\\`);
  }
  return chunks.join('');
}

/**
 * What `--watch` shows of the live previews it receives: a line per item at most once a second
 * ("item 0: preview 18 KB"), and, on a terminal that shows images inline, the image itself
 * under it with that terminal's protocol. Anywhere else only the line: never image bytes.
 */
export function createPreviewPrinter(options: {
  write: (text: string) => void;
  protocol?: 'iterm2' | 'kitty';
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const lastAt = new Map<number, number>();
  return async (preview: TaskPreview): Promise<void> => {
    const at = now();
    if (at - (lastAt.get(preview.index) ?? Number.NEGATIVE_INFINITY) < PREVIEW_LINE_INTERVAL_MS) return;
    lastAt.set(preview.index, at);
    options.write(`item ${preview.index}: preview ${sizeOf(preview.data.length)}`);
    try {
      if (options.protocol === 'iterm2') options.write(iterm2Image(preview.data));
      else if (options.protocol === 'kitty')
        options.write(
          kittyImage(
            preview.mimeType === 'image/png'
              ? preview.data
              : await (await import('sharp')).default(preview.data).png().toBuffer(),
          ),
        );
    } catch {
      // A preview that does not decode: its line says it came.
    }
  };
}
