/** What the views need of a pending task's progress (the API's TaskProgress, or the dashboard's DashboardProgress). */
export interface ProgressLike {
  total: number;
  finished: number;
  items: { status?: string; fraction?: number }[];
  queuePosition?: number;
  estimatedStartAt?: string;
  estimatedFinishAt?: string;
}

/** How much of the task is done, 0..1: its finished items, plus the fractions its running items reported. */
export function overallFraction(progress: ProgressLike): number {
  if (progress.total === 0) return 0;
  let done = progress.finished;
  for (const item of progress.items)
    if (item.status === 'pending' || item.status === undefined) done += item.fraction ?? 0;
  return Math.min(1, Math.max(0, done / progress.total));
}

/** A bar `width` cells wide, filled to `fraction`. */
export const progressBar = (fraction: number, width: number): string => {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `${'█'.repeat(full)}${'░'.repeat(width - full)}`;
};

/** `at` (ISO 8601) as a wait from `now`: ~45s, ~3m, ~2h; "now" once past. */
export function waitUntil(at: string, now: number): string {
  const seconds = Math.round((Date.parse(at) - now) / 1000);
  if (!Number.isFinite(seconds)) return '?';
  if (seconds <= 0) return 'now';
  if (seconds < 90) return `~${seconds}s`;
  if (seconds < 90 * 60) return `~${Math.round(seconds / 60)}m`;
  return `~${Math.round(seconds / 3600)}h`;
}

/**
 * The progress line after the bar: percent done, then, while queued, the tasks ahead and when it
 * should start, and when it should end (each only when known): `40%  2 ahead  starts ~12s  ends ~40s`.
 */
export function progressText(progress: ProgressLike, now: number): string {
  const parts = [`${Math.floor(overallFraction(progress) * 100)}%`];
  if (progress.queuePosition !== undefined)
    parts.push(progress.queuePosition === 0 ? 'next in queue' : `${progress.queuePosition} ahead`);
  if (progress.estimatedStartAt) parts.push(`starts ${waitUntil(progress.estimatedStartAt, now)}`);
  if (progress.estimatedFinishAt) parts.push(`ends ${waitUntil(progress.estimatedFinishAt, now)}`);
  return parts.join('  ');
}
