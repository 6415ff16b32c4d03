import type { Hono } from 'hono';
import type { z } from 'zod';
import { addRoute } from '../../route.js';
import { dataOf } from '../../schemas.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { Destination } from './schemas.js';

export const GetDestinationResponse = dataOf(Destination);
export type GetDestinationResponse = z.infer<typeof GetDestinationResponse>;

export function registerDestinationsGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/destinations/:id',
      summary: 'Read a destination (secrets masked)',
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: GetDestinationResponse,
      errors: ['DESTINATION_NOT_FOUND', 'UNKNOWN_ERROR'],
    },
    async (c, { principal }) => ({
      body: { data: await deps.destinations.get(principal.accountId, c.req.param('id')!) },
    }),
  );
}
