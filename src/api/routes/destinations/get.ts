import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { Destination } from './schemas.js';

export const GetDestinationResponse = dataOf(Destination);
export type GetDestinationResponse = z.infer<typeof GetDestinationResponse>;

export function registerDestinationsGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      path: '/destinations/:id',
      summary: 'Read a destination (secrets masked)',
      guard: { accept: ['accessToken'], scope: 'manage' },
      response: GetDestinationResponse,
      errors: ['DESTINATION_NOT_FOUND', 'UNKNOWN_ERROR'],
    },
    ({ principal, id }) => deps.destinations.get(principal.accountId, id),
  );
}
