import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ErrorCode } from '../../../domain/errors.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute } from '../../route.js';

type BodySchema = z.ZodType | undefined;
type BodyOf<B extends BodySchema> = B extends z.ZodType ? z.infer<B> : undefined;

/** What differs between the /webhook routes: each takes an access token with scope `manage` and answers `{ data }`. */
interface WebhookRoute<B extends BodySchema, D extends z.ZodType> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** At most one path parameter (`:id`, `:deliveryId`): handed to `data` as `id`. */
  path: string;
  summary: string;
  status: number;
  errors: ErrorCode[];
  body?: B;
  response: z.ZodObject<{ data: D }>;
}

/** What a /webhook route's answer is made from: the caller's account, the path's parameter and the parsed body. */
interface WebhookRequest<B extends BodySchema> {
  accountId: string;
  id: string;
  body: BodyOf<B>;
}

/** Mounts a /webhook route answering `{ data }`, the data from one call of the webhook service. */
export function addWebhookRoute<D extends z.ZodType, B extends BodySchema = undefined>(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  route: WebhookRoute<B, D>,
  data: (request: WebhookRequest<B>) => Promise<z.input<D>>,
): void {
  const param = /:(\w+)/.exec(route.path)?.[1];
  addRoute(
    app,
    deps,
    { ...route, guard: { accept: ['accessToken'], scope: 'manage' }, family: 'resource' },
    async (c, { principal, body }) => ({
      body: {
        data: await data({
          accountId: principal.accountId,
          id: param ? c.req.param(param)! : '',
          body: body as BodyOf<B>,
        }),
      },
    }),
  );
}
