import type { Hono } from 'hono';
import type { z } from 'zod';
import { toProgressView } from '../../../engine/task-views.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addRoute } from '../../route.js';
import { Task, taskBody } from './schemas.js';

export const GetTaskResponse = dataOf(Task);
export type GetTaskResponse = z.infer<typeof GetTaskResponse>;

export function registerTasksGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks/:id',
      summary: 'The full task (owner API key only); a pending one with its `progress`',
      description:
        "A pending task carries `progress`: its items (each running one with its `fraction` where the provider reports one), `queuePosition` while none of its items has started, and `estimatedStartAt` / `estimatedFinishAt` from the lane's recent item times; these are held in memory by the process running the task, and absent when unknown. A settled task has no `progress`.",
      guard: { accept: ['apiKey'], scope: 'tasks:read', taskParam: 'id' },
      family: 'resource',
      status: 200,
      response: GetTaskResponse,
      errors: ['TASK_NOT_FOUND'],
    },
    async (c, { principal }) => {
      const task = await deps.tasks.getOwned(principal, c.req.param('id')!);
      const body = taskBody(task);
      // Only while pending: a settled task's items and result say it all.
      if (task.status === 'pending') body.progress = toProgressView(task, deps.tasks.liveProgress(task.id));
      return { body: { data: body } };
    },
  );
}
