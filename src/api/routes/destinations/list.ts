import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { Destination } from './schemas.js';

export const ListDestinationsResponse = dataOf(z.array(Destination));
export type ListDestinationsResponse = z.infer<typeof ListDestinationsResponse>;

export function registerDestinationsList(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/destinations',
      summary: "List the account's destinations (secrets masked)",
      guard: { accept: ['accessToken'], scope: 'manage' },
      response: ListDestinationsResponse,
      errors: ['UNKNOWN_ERROR'],
    },
    ({ principal }) => deps.destinations.list(principal.accountId),
  );
}
