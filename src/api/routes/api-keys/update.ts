import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';
import {
  ApiKey,
  ExpiresAt,
  MaxConcurrent,
  MaxPriority,
  RequestsPerMinute,
  SpendingLimit,
  SpendingLimitPeriod,
} from './schemas.js';

/**
 * Fields left out are kept; null removes a setting. Scopes are not changed here: a key with other scopes is a new key.
 */
export const UpdateApiKeyBody = z.object({
  name: z.string().min(1).max(64).nullable().optional(),
  requestsPerMinute: RequestsPerMinute.nullable().optional(),
  expiresAt: ExpiresAt.nullable().optional(),
  spendingLimit: SpendingLimit.nullable().optional(),
  spendingLimitPeriod: SpendingLimitPeriod.optional(),
  maxConcurrent: MaxConcurrent.nullable().optional(),
  /** null: back to the default. */
  maxPriority: MaxPriority.nullable().optional(),
});
export type UpdateApiKeyBody = z.infer<typeof UpdateApiKeyBody>;

export const UpdateApiKeyResponse = dataOf(ApiKey);
export type UpdateApiKeyResponse = z.infer<typeof UpdateApiKeyResponse>;

export function registerApiKeysUpdate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'patch',
      path: '/api-key/:id',
      summary: "Change a live key's name, request limit, expiry, spending limit or scheduling limits",
      guard: { accept: ['accessToken'], scope: 'keys' },
      body: UpdateApiKeyBody,
      response: UpdateApiKeyResponse,
      errors: ['API_KEY_NOT_FOUND', 'VALIDATION_ERROR'],
    },
    ({ principal, body, id }) => deps.apiKeys.update(principal.accountId, id, body),
  );
}
