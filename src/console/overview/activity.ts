import type { TaskRecord } from '../../store/records.js';
import type { ChartSpec } from '../components/charts.js';
import type { ConsoleDeps } from '../console-deps.js';

const HOUR_MS = 3_600_000;
const HOURS = 24;
/**
 * The 24-hour chart reads the account's tasks of the window newest first, PAGE_SIZE at a time
 * (the API's largest page), at most MAX_PAGES pages: 1,000 tasks. An account that made more in
 * a day sees the newest 1,000 counted, and the chart's note says so.
 */
const PAGE_SIZE = 100;
const MAX_PAGES = 10;
export const DAY_TASKS_BOUND = PAGE_SIZE * MAX_PAGES;
/** The latest failures listed. */
const FAILURES_SHOWN = 10;

export interface DayOfTasks {
  /** The first hour's start (the window is 24 whole UTC hours, the current one last). */
  start: number;
  tasks: TaskRecord[];
  /** More tasks were created in the window than were read (DAY_TASKS_BOUND). */
  truncated: boolean;
}

/** The account's tasks created in the last 24 hours (bounded, see DAY_TASKS_BOUND), newest first. */
export async function tasksOfLastDay(deps: ConsoleDeps, accountId: string, now: number): Promise<DayOfTasks> {
  const start = Math.floor(now / HOUR_MS) * HOUR_MS - (HOURS - 1) * HOUR_MS;
  const createdAfter = new Date(start).toISOString();
  const tasks: TaskRecord[] = [];
  let before: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const found = await deps.tasks.list(accountId, { limit: PAGE_SIZE, createdAfter, before });
    tasks.push(...found.tasks);
    if (!found.more || found.tasks.length === 0) return { start, tasks, truncated: false };
    before = found.tasks.at(-1)!.id;
  }
  return { start, tasks, truncated: true };
}

/** Tasks created in each hour of the window, stacked by their status now. */
export function hourlyByStatus(day: DayOfTasks): ChartSpec {
  const labels = Array.from(
    { length: HOURS },
    (_, hour) => `${new Date(day.start + hour * HOUR_MS).toISOString().slice(11, 16)} UTC`,
  );
  const counts = {
    completed: new Array<number>(HOURS).fill(0),
    failed: new Array<number>(HOURS).fill(0),
    pending: new Array<number>(HOURS).fill(0),
  };
  for (const task of day.tasks) {
    const hour = Math.floor((Date.parse(task.createdAt) - day.start) / HOUR_MS);
    if (hour >= 0 && hour < HOURS) counts[task.status][hour] += 1;
  }
  return {
    labels,
    stacked: true,
    axes: { left: 'tasks' },
    series: [
      { label: 'Completed', values: counts.completed, tone: 'completed' },
      { label: 'Failed', values: counts.failed, tone: 'failed' },
      { label: 'Pending', values: counts.pending, tone: 'pending' },
    ],
  };
}

export interface Failure {
  taskId: string;
  type: string;
  /** When the task last changed (its settlement, or the item's failure while others run). */
  at: string;
  /** A failed task's error, or which item failed in a task that has others. */
  code: string;
  message?: string;
  /** The item that failed, when the task itself did not. */
  item?: number;
}

/** What failed in one task: the task's own errors when it failed, else each failed item's. */
function failuresOf(task: TaskRecord): Failure[] {
  if (task.status === 'failed' && task.errors?.length) {
    return task.errors.map((error) => ({
      taskId: task.id,
      type: task.type,
      at: task.updatedAt,
      code: error.code,
      message: error.message,
    }));
  }
  return task.items.flatMap((item, index) =>
    item.status === 'failed' && item.error
      ? [
          {
            taskId: task.id,
            type: task.type,
            at: task.updatedAt,
            code: item.error.code,
            message: item.error.message,
            item: index,
          },
        ]
      : [],
  );
}

/**
 * The latest failures: the newest failed tasks (whenever they were made), and the failed items of
 * tasks of the last day that completed with others (an image.generate of four with one refused).
 */
export async function latestFailures(deps: ConsoleDeps, accountId: string, day: DayOfTasks): Promise<Failure[]> {
  const failed = (await deps.tasks.list(accountId, { limit: FAILURES_SHOWN, status: 'failed' })).tasks;
  const partly = day.tasks.filter(
    (task) => task.status !== 'failed' && task.items.some((item) => item.status === 'failed'),
  );
  const byId = new Map([...failed, ...partly].map((task) => [task.id, task]));
  // Task ids sort by creation: newest first.
  const newest = [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return newest.flatMap(failuresOf).slice(0, FAILURES_SHOWN);
}
