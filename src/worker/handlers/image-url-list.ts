import { MAX_ATTEMPTS, type TaskError, type TaskErrorCode } from '../../domain/tasks.js';
import type { Micros } from '../../domain/money.js';
import type { Scope } from '../../domain/scopes.js';
import type { SourceImage } from '../../providers/types.js';
import type { TaskTypeDefinition } from '../../services/task-types.js';
import type { z } from 'zod';
import type { ImageTypeDeps } from './deps.js';

/**
 * Rating and alt text share a shape: one item per URL, in order; each item fetches its URL
 * (FETCH_FAILED when it cannot) and asks a provider; a provider that fails after its retries
 * reports the type's own code (RATING_FAILED, ALT_GENERATION_FAILED). The task completes
 * unless every URL failed, and is charged per successful URL.
 */
export function createUrlListType<Req extends { urls: string[] }>(
  deps: ImageTypeDeps,
  spec: {
    type: string;
    scope: Scope;
    schema: z.ZodType<Req>;
    unitPrice: Micros;
    lane: string;
    failureCode: TaskErrorCode;
    validate(request: Req): void;
    run(image: SourceImage, request: Req, signal: AbortSignal): Promise<Record<string, unknown>>;
  },
): TaskTypeDefinition<Req> {
  const ALLOWED: ReadonlySet<TaskErrorCode> = new Set(['FETCH_FAILED', 'UNKNOWN_ERROR', spec.failureCode]);
  return {
    type: spec.type,
    schema: () => spec.schema,
    scope: spec.scope,
    maxAttempts: MAX_ATTEMPTS.image,
    itemCount: (request) => request.urls.length,
    itemCost: () => spec.unitPrice,
    lane: () => spec.lane,
    validate: (request) => spec.validate(request),
    itemErrorCode: (code) => (ALLOWED.has(code) ? code : spec.failureCode),
    async runItem({ request, index, signal }) {
      const url = request.urls[index];
      const image = await deps.images.load(url, 'FETCH_FAILED');
      return { status: 'success', url, ...(await spec.run(image, request, signal)) };
    },
    settle(task, request) {
      const results = task.items.map((item, index) => (item.status === 'success' ? item.result : { status: 'failed', url: request.urls[index], error: { code: item.error!.code } }));
      if (task.items.some((item) => item.status === 'success')) return { status: 'completed', result: { results } };
      const codes = [...new Set(task.items.map((item) => item.error!.code))];
      const errors = codes.map((code): TaskError => ({ code: code as TaskErrorCode, message: `every URL failed (${code})` }));
      return { status: 'failed', result: { results }, errors };
    },
  };
}
