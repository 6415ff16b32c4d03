import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addRoute } from '../../route.js';
import { Task, taskBody } from './schemas.js';

export const CancelTaskResponse = dataOf(Task);
export type CancelTaskResponse = z.infer<typeof CancelTaskResponse>;

export function registerTasksCancel(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/tasks/:id/cancel',
      summary: 'Cancel a pending task (owner API key only): the task as GET /tasks/{id} then shows it',
      description:
        'Unfinished items fail with TASK_CANCELLED (queued ones never start, running ones are aborted) and the rest of the reserve is released. ' +
        'Items that had succeeded stay charged: the task then completes as a partly failed task does; with none it fails with TASK_CANCELLED and is free.',
      guard: { accept: ['apiKey'], scope: 'tasks:cancel', taskParam: 'id' },
      family: 'resource',
      status: 200,
      response: CancelTaskResponse,
      errors: ['TASK_NOT_FOUND', 'TASK_NOT_PENDING'],
    },
    async (c, { principal }) => ({ body: { data: taskBody(await deps.tasks.cancel(principal, c.req.param('id')!)) } }),
  );
}
