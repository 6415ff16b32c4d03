import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { ErrorCode } from '../domain/errors.js';
import type { Principal, RouteGuard } from '../services/auth.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';
import { addRoute, type Reply } from './route.js';
import { CreatedTaskResponse } from './routes/image/schemas.js';
import { createTaskHandler } from './task-create-handler.js';

/** What any create can be refused with: the body, the balance, the key's spending limit, the key's request rate. */
const REFUSALS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'INSUFFICIENT_BALANCE',
  'SPENDING_LIMIT_EXCEEDED',
  'RATE_LIMIT_EXCEEDED',
];

/** What differs between the routes that create tasks: the type, where it is mounted and how it is described. */
interface TaskRoute {
  /** The registered task type the route creates; its scope guards the route. */
  type: string;
  path: string;
  summary: string;
  /** Default: an API key or an access token. */
  accept?: RouteGuard['accept'];
}

/** The spec's parts every create route shares: POST, guarded by the type's scope, in the image family. */
const commonSpec = (deps: ApiDeps, route: TaskRoute) => ({
  method: 'post' as const,
  path: route.path,
  summary: route.summary,
  guard: { accept: route.accept ?? (['apiKey', 'accessToken'] as const), scope: deps.registry.named(route.type).scope },
  family: 'image' as const,
});

/**
 * An asynchronous create route (docs/api/images.md, docs/api/videos.md): POST `path` makes a task
 * of `type` and answers 201 with its id. Without `body`, the type's own schema of the config in
 * force (its model ids come from the config, the schema is built once per config).
 */
export function addTaskCreateRoute(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  route: TaskRoute & { body?: z.ZodType; estimatedCost?: boolean },
): void {
  const type = deps.registry.named(route.type);
  addRoute(
    app,
    deps,
    {
      ...commonSpec(deps, route),
      body: route.body ?? (() => type.body() as z.ZodType),
      status: 201,
      response: CreatedTaskResponse,
      errors: [...REFUSALS, 'ENQUEUE_FAILED'],
    },
    createTaskHandler(deps, type.type, { estimatedCost: route.estimatedCost }),
  );
}

/**
 * A create route that answers in sync by default (docs/api/images.md#rate-and-alt-post-imagerate-post-imagealt):
 * 200 with what the task made when it completes within sync.timeoutMs, else 202 with `pending`, the task to poll.
 */
export function addSyncTaskRoute<B extends z.ZodType, R extends z.ZodType>(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  route: TaskRoute & {
    body: B;
    response: R;
    pending: z.ZodType;
    answer: (
      c: Context<ApiEnv>,
      input: { principal: Principal; body: z.infer<B> },
      type: string,
    ) => Promise<Reply<z.input<R>>>;
  },
): void {
  addRoute<z.ZodType, z.ZodType>(
    app,
    deps,
    {
      ...commonSpec(deps, route),
      body: route.body,
      status: 200,
      response: route.response,
      also: [
        {
          status: 202,
          description:
            'Accepted: `sync: false`, or the task still pending after the sync timeout (sync.timeoutMs); poll GET /tasks/{id}',
          schema: route.pending,
        },
      ],
      errors: [...REFUSALS, 'UNKNOWN_ERROR', 'ENQUEUE_FAILED'],
    },
    (c, input) => route.answer(c, input as { principal: Principal; body: z.infer<B> }, route.type),
  );
}
