import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { TaskStatusSchema } from './schemas.js';

export const GetTaskStatusResponse = dataOf(z.object({ status: TaskStatusSchema }));
export type GetTaskStatusResponse = z.infer<typeof GetTaskStatusResponse>;

export function registerTasksStatus(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/tasks/:id/status',
      summary: "A task's status and nothing else (API key, or a PAT for this task)",
      guard: { accept: ['apiKey', 'pat'], scope: 'tasks:read' },
      response: GetTaskStatusResponse,
      errors: ['TASK_NOT_FOUND'],
    },
    async ({ principal, id }) => ({ status: (await deps.tasks.getReadable(principal, id)).status }),
  );
}
