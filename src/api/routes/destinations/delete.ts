import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { Deleted, dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';

export const DeleteDestinationResponse = dataOf(Deleted);
export type DeleteDestinationResponse = z.infer<typeof DeleteDestinationResponse>;

export function registerDestinationsDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/destinations/:id',
      summary: 'Delete a destination',
      guard: { accept: ['accessToken'], scope: 'manage' },
      response: DeleteDestinationResponse,
      errors: ['DESTINATION_NOT_FOUND'],
    },
    async ({ principal, id }) => {
      await deps.destinations.delete(principal.accountId, id);
      return { id, deleted: true as const };
    },
  );
}
