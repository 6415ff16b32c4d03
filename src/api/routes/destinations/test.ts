import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addDataRoute } from '../../data-route.js';

export const TestDestinationResponse = dataOf(
  z.object({
    ok: z.literal(true),
    key: z.string().describe('the full object key written'),
    url: z.string().nullable(),
    deleted: z.boolean().describe('whether the test object was deleted afterwards'),
    deleteError: z.string().optional().describe("why not: the storage's answer"),
  }),
);
export type TestDestinationResponse = z.infer<typeof TestDestinationResponse>;

export function registerDestinationsTest(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addDataRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/destinations/:id/test',
      summary:
        'Write a small test object; 502 with the storage message when it refuses, 400 when the SSRF guard refuses its address',
      guard: { accept: ['accessToken'], scope: 'manage' },
      response: TestDestinationResponse,
      errors: ['VALIDATION_ERROR', 'DESTINATION_NOT_FOUND', 'DESTINATION_TEST_FAILED', 'UNKNOWN_ERROR'],
    },
    ({ principal, id }) => deps.destinations.test(principal.accountId, id),
  );
}
