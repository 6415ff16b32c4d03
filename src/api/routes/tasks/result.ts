import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { TaskResult, taskResultBody } from './schemas.js';

export const GetTaskResultResponse = dataOf(TaskResult);
export type GetTaskResultResponse = z.infer<typeof GetTaskResultResponse>;

export function registerTasksResult(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks/:id/result',
      summary: "A task's id, status, type and result (API key, or a PAT for this task)",
      guard: { accept: ['apiKey', 'pat'], scope: 'tasks:read' },
      family: 'resource',
      status: 200,
      response: GetTaskResultResponse,
      errors: ['TASK_NOT_FOUND'],
    },
    async (c, { principal }) => ({
      body: { data: taskResultBody(await deps.tasks.getReadable(principal, c.req.param('id')!)) },
    }),
  );
}
