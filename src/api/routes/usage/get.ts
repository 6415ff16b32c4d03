import type { Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { MAX_USAGE_DAYS, USAGE_GROUP_BY } from '../../../services/usage.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf, Timestamp, Usd } from '../../common-schemas.js';
import { addRoute } from '../../route.js';

const When = z.string().max(64);

export const UsageQuery = z.object({
  from: When.optional().describe(
    'start, inclusive: an ISO 8601 date (2026-11-01, midnight UTC) or date-time with an offset; default: `to` minus 30 days',
  ),
  to: When.optional().describe(
    `end, exclusive, in the same forms; default: now. At most ${MAX_USAGE_DAYS} days after \`from\``,
  ),
  groupBy: z
    .enum(USAGE_GROUP_BY)
    .optional()
    .describe(
      'day (UTC day of settlement, YYYY-MM-DD), key (API key id; null: tasks created with an access token), type (task type) or model (the model an image.generate or video.generate task ran on; null: other types); default day',
    ),
});

const Bytes = z.number().int().describe('bytes');

const Figures = {
  cost: Usd.describe('charged, decimal USD'),
  tasks: z.number().int().describe('settled tasks (completed or failed)'),
  items: z.number().int().describe('their successful (charged) items'),
};

export const UsageResponse = dataOf(
  z.object({
    from: Timestamp,
    to: Timestamp,
    groupBy: z.enum(USAGE_GROUP_BY),
    total: z.object(Figures),
    groups: z
      .array(z.object({ key: z.string().nullable().describe('the day, key id, type or model'), ...Figures }))
      .describe('sorted by key, null last'),
    storage: z
      .object({
        at: Timestamp.describe('when it was read: now, whatever the range'),
        bytes: Bytes.describe('outputs and uploads together'),
        outputs: z
          .object({ bytes: Bytes })
          .describe("the files of the account's tasks that still hold their data: images, videos, their posters"),
        uploads: z
          .object({ count: z.number().int().describe('uploaded images kept'), bytes: Bytes })
          .describe('images uploaded with POST /image/upload'),
      })
      .describe(
        'what the account stores now, in bytes as stored; a deleted task or upload, or one retention removed, no longer counts',
      ),
  }),
);
export type UsageResponse = z.infer<typeof UsageResponse>;

export function registerUsageGet(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/usage',
      summary:
        "The account's charges by settlement time, grouped by day, API key, task type or model (credits not included), and the bytes it stores now",
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      response: UsageResponse,
      query: UsageQuery,
      errors: ['VALIDATION_ERROR'],
    },
    async (c, { principal }) => {
      const parsed = UsageQuery.safeParse(c.req.query());
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AppError('VALIDATION_ERROR', `${issue.path.join('.') || 'query'}: ${issue.message}`);
      }
      return { body: { data: await deps.usage.report(principal.accountId, parsed.data) } };
    },
  );
}
