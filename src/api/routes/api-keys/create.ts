import type { Hono } from 'hono';
import { z } from 'zod';
import { ALL_SCOPES } from '../../../domain/scopes.js';
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

export const CreateApiKeyBody = z.object({
  name: z.string().min(1).max(64).optional(),
  /**
   * Defaults to every API-key scope the caller's token holds. A key never holds more than its
   * creator: other scopes, `keys` and `manage` included, pass the schema and are refused with
   * SCOPE_ESCALATION.
   */
  scopes: z
    .array(
      z.enum(ALL_SCOPES, { error: (issue) => `unknown scope ${String(issue.input)}; known: ${ALL_SCOPES.join(', ')}` }),
    )
    .max(ALL_SCOPES.length * 2)
    .optional(),
  spendingLimit: SpendingLimit.optional(),
  spendingLimitPeriod: SpendingLimitPeriod.optional(),
  requestsPerMinute: RequestsPerMinute.optional(),
  expiresAt: ExpiresAt.optional(),
  /** null, as absent: no bound. */
  maxConcurrent: MaxConcurrent.nullable().optional(),
  /** null, as absent: the default. */
  maxPriority: MaxPriority.nullable().optional(),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const CreateApiKeyResponse = dataOf(
  z.object({ apiKey: ApiKey, raw: z.string().describe('the full key, shown only here') }),
);
export type CreateApiKeyResponse = z.infer<typeof CreateApiKeyResponse>;

export function registerApiKeysCreate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/api-key',
      summary: 'Create an API key; the raw key is in the answer once',
      guard: { accept: ['accessToken'], scope: 'keys' },
      body: CreateApiKeyBody,
      status: 201,
      response: CreateApiKeyResponse,
      errors: ['API_KEY_LIMIT_REACHED', 'SCOPE_ESCALATION', 'VALIDATION_ERROR'],
    },
    ({ principal, body }) =>
      deps.apiKeys.create({ ...body, accountId: principal.accountId, creatorScopes: principal.scopes }),
  );
}
