import { parseSizeText } from '../../domain/sizes.js';

/** The size a model takes whose aspect ratio is nearest the request's (then the nearest area). */
export function nearestSize(sizes: readonly string[], width: number, height: number): string {
  const wanted = Math.log(width / height);
  let best = sizes[0];
  let bestScore = Infinity;
  for (const size of sizes) {
    const parsed = parseSizeText(size);
    if (!parsed) continue;
    const score =
      Math.abs(Math.log(parsed.width / parsed.height) - wanted) * 10 +
      Math.abs(Math.log((parsed.width * parsed.height) / (width * height)));
    if (score < bestScore) {
      bestScore = score;
      best = size;
    }
  }
  return best;
}
