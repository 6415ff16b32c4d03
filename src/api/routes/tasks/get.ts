import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
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
      summary: 'The full task (owner API key only)',
      guard: { accept: ['apiKey'], scope: 'tasks:read', taskParam: 'id' },
      family: 'resource',
      status: 200,
      response: GetTaskResponse,
      errors: ['TASK_NOT_FOUND'],
    },
    async (c, { principal }) => ({ body: { data: taskBody(await deps.tasks.getOwned(principal, c.req.param('id')!)) } }),
  );
}
