import type { Hono } from 'hono';
import { z } from 'zod';
import { DestinationName } from '../../../task-types/request-parts.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { Destination } from './schemas.js';
/** A new name, or a whole new config (masked secrets sent back keep their values); `provider.id` cannot change. */
export const UpdateDestinationBody = z.object({
  name: DestinationName.optional(),
  provider: z.object({ id: z.string().min(1) }).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
export type UpdateDestinationBody = z.infer<typeof UpdateDestinationBody>;

export const UpdateDestinationResponse = dataOf(Destination);
export type UpdateDestinationResponse = z.infer<typeof UpdateDestinationResponse>;

export function registerDestinationsUpdate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'patch',
      path: '/destinations/:id',
      summary: 'Rename or reconfigure a destination; masked secrets sent back keep their values',
      guard: { accept: ['accessToken'], scope: 'manage' },
      body: UpdateDestinationBody,
      response: UpdateDestinationResponse,
      errors: [
        'DESTINATION_NOT_FOUND',
        'DESTINATIONS_INVALID_PROVIDER',
        'DESTINATION_NAME_TAKEN',
        'VALIDATION_ERROR',
        'UNKNOWN_ERROR',
      ],
    },
    ({ principal, body, id }) => deps.destinations.update(principal.accountId, id, body),
  );
}
