import type { Hono } from 'hono';
import { z } from 'zod';
import { parseQuery } from '../../body.js';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Task, TaskStatusSchema, taskBody } from './schemas.js';

export const ListTasksQuery = z
  .object({
    status: TaskStatusSchema.optional(),
    type: z.string().min(1).max(64).optional(),
    createdAfter: z.iso.datetime().optional(),
    createdBefore: z.iso.datetime().optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z
      .string()
      .regex(/^tsk_[0-9A-Za-z]+$/, 'a cursor from a previous page')
      .optional(),
  })
  .catchall(z.string().max(256));

export const ListTasksResponse = z.object({ data: z.array(Task), nextCursor: z.string().nullable().describe('the cursor of the next page; null on the last') });
export type ListTasksResponse = z.infer<typeof ListTasksResponse>;

export function registerTasksList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks',
      summary: "The caller's tasks, newest first; filters: status, type, createdAfter, createdBefore, metadata.<key>=<value>",
      guard: { accept: ['apiKey'], scope: 'tasks:read' },
      family: 'resource',
      status: 200,
      response: ListTasksResponse,
    },
    async (c, { principal }) => {
      const query = parseQuery(c, ListTasksQuery, 'resource');
      const metadata = Object.fromEntries(
        Object.entries(query)
          .filter(([key]) => key.startsWith('metadata.'))
          .map(([key, value]) => [key.slice('metadata.'.length), String(value)]),
      );
      const createdAfter = query.createdAfter ? new Date(query.createdAfter).toISOString() : undefined;
      const createdBefore = query.createdBefore ? new Date(query.createdBefore).toISOString() : undefined;
      const page = await deps.tasks.list(principal.accountId, {
        limit: query.limit,
        before: query.cursor,
        createdAfter,
        createdBefore,
        status: query.status,
        type: query.type,
        metadata,
      });
      const last = page.tasks.at(-1);
      return { body: { data: page.tasks.map(taskBody), nextCursor: page.more && last ? last.id : null } };
    },
  );
}
