/** How an animated WebP's frames play at one constant rate: the rate, and how many times each stored frame is shown. */
export interface WebpTiming {
  /** Frames per second, as ffmpeg takes it: an integer, or `1000/<ms>`. */
  rate: string;
  /** Per stored frame: how many frames of `rate` it lasts (at least 1). */
  repeats: number[];
}

/** The delay browsers give frames of 0 ms (they draw them at about 10 per second). */
const ZERO_DELAY_MS = 100;

/**
 * The constant rate of an animated WebP's frames (ms each). The encoder merges identical frames
 * into one that lasts as long as they did, so the shortest delay is one frame and a longer one
 * is that many frames. `fps` is the rate the clip was made for: SaveAnimatedWEBP stores
 * int(1000 / fps) ms, so a delay within a millisecond of 1000 / fps plays at `fps` itself.
 */
export function webpTiming(delays: readonly number[], fps?: number): WebpTiming {
  const positive = delays.filter((delay) => delay > 0);
  const base = positive.length > 0 ? Math.min(...positive) : fps && fps > 0 ? 1000 / fps : ZERO_DELAY_MS;
  const rate =
    fps && fps > 0 && Math.abs(1000 / fps - base) < 1
      ? String(fps)
      : Number.isInteger(base)
        ? `1000/${base}`
        : String(1000 / base);
  return { rate, repeats: delays.map((delay) => Math.max(1, Math.round(delay / base))) };
}
