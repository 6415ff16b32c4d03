import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { parseQuery } from '../../body.js';
import { addRoute } from '../../route.js';
import { Task, TaskStatusSchema, taskBody } from './schemas.js';

export const ListTasksQuery = z
  .object({
    status: TaskStatusSchema.optional().describe('only tasks in this status'),
    type: z.string().min(1).max(64).optional().describe('only tasks of this type, e.g. image.generate'),
    createdAfter: z.iso.datetime().optional().describe('only tasks created after this instant (ISO 8601)'),
    createdBefore: z.iso.datetime().optional().describe('only tasks created before this instant (ISO 8601)'),
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('page size'),
    cursor: z
      .string()
      .regex(/^tsk_[0-9A-Za-z]+$/, 'a cursor from a previous page')
      .optional()
      .describe('nextCursor of the previous page'),
  })
  .catchall(
    z
      .string()
      .max(256)
      .describe(
        'metadata.<key>=<value>: only tasks whose metadata has that key with that value (as a string); other names are ignored',
      ),
  );

export const ListTasksResponse = z.object({
  data: z.array(Task),
  nextCursor: z.string().nullable().describe('the cursor of the next page; null on the last'),
});
export type ListTasksResponse = z.infer<typeof ListTasksResponse>;

export function registerTasksList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks',
      summary:
        "The caller's tasks, newest first; filters: status, type, createdAfter, createdBefore, metadata.<key>=<value>",
      guard: { accept: ['apiKey'], scope: 'tasks:read' },
      family: 'resource',
      status: 200,
      response: ListTasksResponse,
      query: ListTasksQuery,
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
