import { readFile } from 'node:fs/promises';

/**
 * The most items of the tasks `ids` that ran at once, from a span log the test task type appends
 * `start|end <taskId>:<index> <epoch ms>` lines to (its `spanLog` field), in one process or several.
 */
export async function mostAtOnce(spanLog: string, ids: ReadonlySet<string>): Promise<number> {
  const events = (await readFile(spanLog, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([, item]) => ids.has(item.split(':')[0]))
    .map(([kind, , at]) => ({ delta: kind === 'start' ? 1 : -1, at: Number(at) }))
    // An end before a start at the same millisecond: touching spans do not overlap.
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let most = 0;
  for (const { delta } of events) {
    now += delta;
    most = Math.max(most, now);
  }
  return most;
}
