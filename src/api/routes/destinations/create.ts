import type { Hono } from 'hono';
import { z } from 'zod';
import { DESTINATION_CONFIGS, DESTINATION_PROVIDERS } from '../../../services/destination-configs.js';
import { DestinationName } from '../../../task-types/request-parts.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { Destination } from './schemas.js';
/** `{ name, provider: { id }, config }`, the config checked against the provider's own schema. */
export const CreateDestinationBody = z
  .object({
    name: DestinationName,
    provider: z.object({ id: z.enum(DESTINATION_PROVIDERS) }),
    config: z.record(z.string(), z.unknown()),
  })
  .superRefine((body, ctx) => {
    const parsed = DESTINATION_CONFIGS[body.provider.id].safeParse(body.config);
    if (!parsed.success)
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['config', ...issue.path] } as never);
  });
export type CreateDestinationBody = z.infer<typeof CreateDestinationBody>;

export const CreateDestinationResponse = dataOf(Destination);
export type CreateDestinationResponse = z.infer<typeof CreateDestinationResponse>;

export function registerDestinationsCreate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/destinations',
      summary: 'Create a destination',
      guard: { accept: ['accessToken'], scope: 'manage' },
      body: CreateDestinationBody,
      status: 201,
      response: CreateDestinationResponse,
      errors: ['DESTINATION_NAME_TAKEN', 'VALIDATION_ERROR', 'UNKNOWN_ERROR'],
    },
    ({ principal, body }) => deps.destinations.create(principal.accountId, body),
  );
}
