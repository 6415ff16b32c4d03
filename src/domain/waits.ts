/** A wait in seconds as people read it in a listing: 12s, 3m, 2h (rounded; under 90 of a unit stays in it). */
export function waitText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s}s`;
  if (s < 90 * 60) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}
