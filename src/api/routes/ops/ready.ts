import type { Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addRoute } from '../../route.js';

export const ReadyResponse = dataOf(
  z.object({
    status: z.literal('ready'),
    /**
     * Only while an operator has paused a lane: its queued work waits, yet the service is ready
     * (docs/operations.md#logs-metrics-and-readiness).
     */
    pausedLanes: z.array(z.object({ lane: z.string(), pausedAt: z.string() })).optional(),
    /**
     * Content Credentials (docs/provenance.md): `signing`, `off` (provenance.enabled false) or `unavailable` (the C2PA
     * library does not load here: outputs are stored unsigned, the service still ready).
     */
    provenance: z.object({ state: z.enum(['signing', 'off', 'unavailable']), reason: z.string().optional() }),
  }),
);
export type ReadyResponse = z.infer<typeof ReadyResponse>;

/**
 * `GET /ready`: 200 once the service can do its work (the store takes writes, and the models
 * the server preloads are loaded); 503 NOT_READY otherwise, the message naming what is not
 * ready. `/health` only says the process answers. Paused lanes are named in the 200's body,
 * never a 503: a pause is an operator's choice, and the service still takes creates. So is
 * whether outputs are signed: a signer that is unavailable here leaves them unsigned, not the
 * service unready.
 */
export function registerReady(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/ready',
      summary:
        'Readiness: answers 200 once the store takes writes and the preloaded models are loaded, 503 NOT_READY before',
      family: 'resource',
      status: 200,
      errors: ['NOT_READY'],
      response: ReadyResponse,
    },
    async (c) => {
      const notReady = await deps.ops.notReady();
      if (notReady.length > 0) throw new AppError('NOT_READY', `not ready: ${notReady.join('; ')}`);
      c.header('cache-control', 'no-store');
      const pausedLanes = await deps.ops.pausedLanes();
      return {
        body: {
          data: {
            status: 'ready' as const,
            ...(pausedLanes.length > 0 ? { pausedLanes } : {}),
            provenance: deps.ops.provenance(),
          },
        },
      };
    },
  );
}
