/**
 * The size Ink lays out in when the terminal gives none: the width it uses for a pipe, and a classic terminal's height.
 */
const FALLBACK = { columns: 80, rows: 24 } as const;

/**
 * The stream an Ink view draws on, with a size it can lay out in. A terminal that reports 0
 * columns and rows (a serial console, some CI and container pseudo-terminals, `stty cols 0`)
 * would have Ink wrap every line to one character, and, its view "taller than the screen",
 * clear the screen and the scrollback on every frame; it gets 80 × 24 instead. A terminal that
 * reports its size, now or after a resize, is read as it is.
 */
export function drawableStdout(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (stream.columns > 0 && stream.rows > 0) return stream;
  return new Proxy(stream, {
    get(target, key) {
      if (key === 'columns' || key === 'rows') return target[key] > 0 ? target[key] : FALLBACK[key];
      const value = Reflect.get(target, key, target);
      // The stream's own methods run on the stream itself, never on this view of it.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
