import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { Deleted, dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export const DeleteDestinationResponse = dataOf(Deleted);
export type DeleteDestinationResponse = z.infer<typeof DeleteDestinationResponse>;

export function registerDestinationsDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/destinations/:id',
      summary: 'Delete a destination',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: DeleteDestinationResponse,
      errors: ['DESTINATION_NOT_FOUND'],
    },
    async (c, { principal }) => {
      const id = c.req.param('id')!;
      await deps.destinations.delete(principal.accountId, id);
      return { body: { data: { id, deleted: true as const } } };
    },
  );
}
