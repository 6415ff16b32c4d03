import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addRoute } from '../../route.js';
import { Task, taskBody } from './schemas.js';

export const DeleteTaskResponse = dataOf(Task);
export type DeleteTaskResponse = z.infer<typeof DeleteTaskResponse>;

export function registerTasksDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/tasks/:id',
      summary:
        "Delete a task's data (owner API key with tasks:cancel, or the owner's access token): its outputs, prompts, metadata and results; answers the task as it is kept",
      description:
        'A pending task is cancelled first (as POST /tasks/{id}/cancel). Then its images, videos and their poster frames are deleted (their URLs answer 404), ' +
        'its request, metadata, result and error messages are removed, and its stored webhook event is rebuilt from what is left (a delivery still pending sends that). ' +
        'The task keeps what accounting needs: id, type, status, cost, owner, timestamps, item statuses and costs, with `dataRemoved: true` and `dataRemovedAt`. ' +
        'Again on a deleted task: 200 with the same task. Copies a destination received, or a cache kept (Cache-Control max-age), are not reached (docs/data-lifecycle.md).',
      guard: { accept: ['apiKey', 'accessToken'], scope: 'tasks:cancel', taskParam: 'id' },
      family: 'resource',
      status: 200,
      response: DeleteTaskResponse,
      errors: ['TASK_NOT_FOUND'],
    },
    async (c, { principal }) => ({
      body: { data: taskBody(await deps.dataRemoval.removeTask(principal.accountId, c.req.param('id')!)) },
    }),
  );
}
