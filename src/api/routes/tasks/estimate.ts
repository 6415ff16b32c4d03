import type { Hono } from 'hono';
import { z } from 'zod';
import { formatUsd } from '../../../domain/money.js';
import { addRoute } from '../../route.js';
import { toSchemaIssues } from '../../schema-issues.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export const EstimateBody = z.object({
  type: z.string().min(1).max(64),
  request: z.unknown(),
});

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
      errors: ['VALIDATION_ERROR'],
    },
    async (c, { principal, body }) => {
      const type = deps.tasks.typeNamed(body.type);
      deps.auth.authorize(principal, { accept: ['apiKey', 'accessToken'], scope: type.scope });
      // `request` is what the type's create route takes as its body; its issues are reported under `request`.
      const parsed = type.body().safeParse(body.request ?? {});
      if (!parsed.success) {
        const issues = toSchemaIssues(parsed.error, body.request).map((issue) => ({ ...issue, path: ['request', ...issue.path] }));
        return c.json({ success: false, errors: issues }, 400);
      }
      const estimate = await deps.tasks.estimate(principal, type.type, parsed.data);
      return c.json({ data: { type: type.type, estimatedCost: formatUsd(estimate.total), items: estimate.items.map(formatUsd), currency: 'USD' } });
    },
  );
}
