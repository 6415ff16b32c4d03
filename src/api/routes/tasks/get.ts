import type { Hono } from 'hono';
import { toTaskView } from '../../../services/task-views.js';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerTasksGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks/:id',
      summary: 'The full task (owner API key only)',
      guard: { accept: ['apiKey'], scope: 'tasks:read' },
      family: 'resource',
      status: 200,
      errors: ['TASK_NOT_FOUND'],
    },
    async (c, { principal }) => c.json({ data: toTaskView(await deps.tasks.getOwned(principal, c.req.param('id')!)) }),
  );
}
