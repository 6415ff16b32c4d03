import type { z } from 'zod';
import type { Micros } from '../domain/money.js';
import type { Scope } from '../domain/scopes.js';
import { MAX_ATTEMPTS, type TaskError, type TaskErrorCode } from '../domain/task-status.js';
import type { TaskTypeDefinition } from '../engine/task-registry.js';
import type { SourceImage } from '../providers/provider-types.js';
import type { ImageTaskDeps } from './task-type-deps.js';

/**
 * A failed item's error as results show it: its code and, when it has one, why (the fetch's or the provider's words).
 */
const itemError = (error: { code: string; message?: string }) =>
  error.message ? { code: error.code, message: error.message } : { code: error.code };

/** What rate and alt keep of their body: the URLs (plus the rating's mode and levels). */
export interface UrlListRequest {
  urls: string[];
}

/**
 * Rating and alt text share a shape: one item per URL, in order; each item fetches its URL
 * (FETCH_FAILED when it cannot) and asks a provider; a provider that fails after its retries
 * reports the type's own code (RATING_FAILED, ALT_GENERATION_FAILED). A failed item's result
 * carries its code and reason, as review's and remove-background's errors do. The task completes
 * unless every URL failed, and is charged per successful URL.
 */
export function createUrlListType<Body, Req extends UrlListRequest>(
  deps: ImageTaskDeps,
  spec: {
    type: string;
    scope: Scope;
    body: z.ZodType<Body>;
    toRequest(body: Body): Req;
    unitPrice: Micros;
    lane: string;
    failureCode: TaskErrorCode;
    validate(request: Req): void;
    run(image: SourceImage, request: Req, signal: AbortSignal): Promise<Record<string, unknown>>;
  },
): TaskTypeDefinition<Body, Req> {
  const allowed: ReadonlySet<TaskErrorCode> = new Set(['FETCH_FAILED', 'UNKNOWN_ERROR', spec.failureCode]);
  return {
    type: spec.type,
    scope: spec.scope,
    body: () => spec.body,
    toRequest: spec.toRequest,
    validate: (request) => spec.validate(request),
    itemCount: (request) => request.urls.length,
    itemCost: () => spec.unitPrice,

    lane: () => spec.lane,
    maxAttempts: MAX_ATTEMPTS.image,
    itemErrorCode: (code) => (allowed.has(code) ? code : spec.failureCode),
    async runItem({ request, index, signal }) {
      const url = request.urls[index];
      const image = await deps.images.load(url, 'FETCH_FAILED', signal);
      return { status: 'success', url, ...(await spec.run(image, request, signal)) };
    },
    settle(task, request) {
      const results = task.items.map((item, index) =>
        item.status === 'success'
          ? item.result
          : { status: 'failed', url: request.urls[index], error: itemError(item.error!) },
      );
      if (task.items.some((item) => item.status === 'success')) return { status: 'completed', result: { results } };
      const codes = [...new Set(task.items.map((item) => item.error!.code))];
      const errors = codes.map(
        (code): TaskError => ({ code: code as TaskErrorCode, message: `every URL failed (${code})` }),
      );
      return { status: 'failed', result: { results }, errors };
    },
  };
}
