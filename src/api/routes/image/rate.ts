import type { Hono } from 'hono';
import { RateBody } from '../../../services/image/requests.js';
import { createAndMaybeWait } from '../../sync-answer.js';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

export function registerImageRate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/rate',
      summary: 'Rate images (sync by default: 200 with results, or 202 to poll)',
      guard: { accept: ['apiKey', 'accessToken'], scope: 'image:rate' },
      family: 'image',
      body: RateBody,
      status: 200,
      errors: ['VALIDATION_ERROR', 'INSUFFICIENT_BALANCE', 'SPENDING_LIMIT_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'UNKNOWN_ERROR', 'ENQUEUE_FAILED'],
    },
    (c, { principal, body }) => {
      // The task keeps mode, urls and, in custom mode only, levels (SPEC part 2).
      const request = body.mode === 'custom' ? { mode: body.mode, urls: body.urls, levels: body.levels } : { mode: body.mode, urls: body.urls };
      return createAndMaybeWait(c, deps, principal, 'image.rate', request, body.sync);
    },
  );
}
