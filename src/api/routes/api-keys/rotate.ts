import type { Hono } from 'hono';
import { z } from 'zod';
import { DEFAULT_ROTATION_GRACE_SECONDS } from '../../../services/api-keys.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import { ApiKey } from './schemas.js';

/** At most 30 days of grace: a longer overlap is two keys, made and deleted on purpose. */
const MAX_GRACE_SECONDS = 30 * 86_400;

export const RotateApiKeyBody = z.object({
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_GRACE_SECONDS)
    .optional()
    .describe(`how long the old key keeps working (default ${DEFAULT_ROTATION_GRACE_SECONDS}, 24 h); 0 revokes it now`),
});
export type RotateApiKeyBody = z.infer<typeof RotateApiKeyBody>;

export const RotateApiKeyResponse = dataOf(
  z.object({
    apiKey: ApiKey,
    raw: z.string().describe('the full new key, shown only here'),
    previous: ApiKey.describe('the old key: its expiresAt is the end of its grace; with graceSeconds 0 it is revoked'),
  }),
);
export type RotateApiKeyResponse = z.infer<typeof RotateApiKeyResponse>;

export function registerApiKeysRotate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/api-key/:id/rotate',
      summary: 'Replace a key by a new raw key with the same settings; the old one works for a grace period',
      guard: { accept: ['accessToken'], scope: 'keys' },
      body: RotateApiKeyBody,
      status: 201,
      response: RotateApiKeyResponse,
      errors: ['API_KEY_NOT_FOUND', 'API_KEY_LIMIT_REACHED'],
    },
    ({ principal, body, id }) => deps.apiKeys.rotate(principal.accountId, id, body.graceSeconds),
  );
}
