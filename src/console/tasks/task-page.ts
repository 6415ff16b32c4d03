import type { TaskRecord } from '../../engine/task-registry.js';
import type { ConsoleDeps } from '../console-deps.js';
import type { TaskListRequest } from './list-query.js';

/** One page of the list and where its "Older" and "Newer" links lead. */
export interface TaskPage {
  tasks: TaskRecord[];
  /** The `before` cursor of the next older page; null on the oldest. */
  older: string | null;
  /** The `after` cursor of the next newer page; null on the newest. */
  newer: string | null;
  /** The newest page: new tasks would show up on it (the live list refreshes it). */
  newest: boolean;
}

/** The page a list URL names, through the same service call GET /tasks makes. */
export async function loadTaskPage(
  deps: Pick<ConsoleDeps, 'tasks'>,
  accountId: string,
  request: TaskListRequest,
): Promise<TaskPage> {
  const { query } = request;
  if (request.after) {
    const page = await deps.tasks.list(accountId, { ...query, after: request.after });
    // Nothing newer past this page: it is the newest one, shown as the list's first page is.
    if (page.more)
      return {
        tasks: page.tasks,
        older: page.tasks.at(-1)?.id ?? request.after,
        newer: page.tasks[0]?.id ?? null,
        newest: false,
      };
  } else if (request.before) {
    const page = await deps.tasks.list(accountId, { ...query, before: request.before });
    return {
      tasks: page.tasks,
      older: page.more ? (page.tasks.at(-1)?.id ?? null) : null,
      newer: page.tasks[0]?.id ?? null,
      newest: false,
    };
  }
  const page = await deps.tasks.list(accountId, query);
  return { tasks: page.tasks, older: page.more ? (page.tasks.at(-1)?.id ?? null) : null, newer: null, newest: true };
}
