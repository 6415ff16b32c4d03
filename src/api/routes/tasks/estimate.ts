import type { Hono } from 'hono';
import { z } from 'zod';
import { formatUsd } from '../../../domain/money.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { rejectSchema } from '../../body.js';
import { dataOf, Usd } from '../../common-schemas.js';
import { addRoute } from '../../route.js';
import { toSchemaIssues } from '../../schema-issues.js';

/** `request` is what the type's create route takes as its body. */
export const EstimateBody = z.object({
  type: z.string().min(1).max(64),
  request: z.unknown(),
});
export type EstimateBody = z.infer<typeof EstimateBody>;

export const EstimateResponse = dataOf(
  z.object({
    type: z.string(),
    estimatedCost: Usd,
    items: z.array(Usd).describe('the cost of each item'),
    currency: z.literal('USD'),
  }),
);
export type EstimateResponse = z.infer<typeof EstimateResponse>;

export function registerTasksEstimate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/tasks/estimate',
      summary: 'What creating a task would reserve, without creating it',
      guard: { accept: ['apiKey', 'accessToken'] },
      family: 'resource',
      body: EstimateBody,
      status: 200,
      response: EstimateResponse,
      errors: ['VALIDATION_ERROR'],
    },
    async (_c, { principal, body }) => {
      const type = deps.tasks.typeNamed(body.type);
      deps.auth.authorize(principal, { accept: ['apiKey', 'accessToken'], scope: type.scope });
      // The type's own body schema; its issues are reported under `request`.
      const parsed = type.body().safeParse(body.request ?? {});
      if (!parsed.success) {
        rejectSchema(
          'resource',
          toSchemaIssues(parsed.error, body.request).map((issue) => ({ ...issue, path: ['request', ...issue.path] })),
          body,
        );
      }
      const estimate = await deps.tasks.estimate(principal, type.type, parsed.data);
      return {
        body: {
          data: {
            type: type.type,
            estimatedCost: formatUsd(estimate.total),
            items: estimate.items.map(formatUsd),
            currency: 'USD' as const,
          },
        },
      };
    },
  );
}
