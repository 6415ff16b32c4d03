import type { Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { formatUsd } from '../../../domain/money.js';
import { toSchemaIssues } from '../../schema-issues.js';
import { addRoute } from '../../route.js';
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
      const def = deps.registry.get(body.type);
      if (!def) throw new AppError('VALIDATION_ERROR', `no task type "${body.type}"; known: ${deps.registry.list().map((d) => d.type).join(', ')}`);
      deps.auth.authorize(principal, { accept: ['apiKey', 'accessToken'], scope: def.scope });
      const parsed = def.schema().safeParse(body.request ?? {});
      if (!parsed.success) {
        const issues = toSchemaIssues(parsed.error, body.request).map((issue) => ({ ...issue, path: ['request', ...issue.path] }));
        return c.json({ success: false, errors: issues }, 400);
      }
      await def.validate?.(parsed.data, { accountId: principal.accountId });
      const count = def.itemCount(parsed.data);
      const items = Array.from({ length: count }, (_, index) => def.itemCost(parsed.data, index));
      return c.json({
        data: { type: def.type, estimatedCost: formatUsd(items.reduce((a, b) => a + b, 0)), items: items.map(formatUsd), currency: 'USD' },
      });
    },
  );
}
