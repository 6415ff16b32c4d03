import type { Hono } from 'hono';
import { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Destination } from './schemas.js';

export const ListDestinationsResponse = dataOf(z.array(Destination));
export type ListDestinationsResponse = z.infer<typeof ListDestinationsResponse>;

export function registerDestinationsList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/destinations',
      summary: "List the account's destinations (secrets masked)",
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: ListDestinationsResponse,
      errors: ['UNKNOWN_ERROR'],
    },
    async (_c, { principal }) => ({ body: { data: await deps.destinations.list(principal.accountId) } }),
  );
}
