import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { TaskResult, taskResultBody } from './schemas.js';

export const GetTaskResultResponse = dataOf(TaskResult);
export type GetTaskResultResponse = z.infer<typeof GetTaskResultResponse>;

export function registerTasksResult(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/tasks/:id/result',
      summary: "A task's id, status, type and result (API key, or a PAT for this task)",
      guard: { accept: ['apiKey', 'pat'], scope: 'tasks:read' },
      response: GetTaskResultResponse,
      errors: ['TASK_NOT_FOUND'],
    },
    async ({ principal, id }) => taskResultBody(await deps.tasks.getReadable(principal, id)),
  );
}
