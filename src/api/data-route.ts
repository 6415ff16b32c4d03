import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { Principal } from '../services/auth.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';
import { addRoute, type RouteSpec } from './route.js';

type Schema = z.ZodType | undefined;

/** What a `{ data }` answer holds under `data`. */
type DataOf<Answer> = Answer extends { data: infer Data } ? Data : never;

/** A resource route's spec: GET, answering 200, in the resource family, unless it says otherwise. */
type DataRouteSpec<B extends Schema, R extends z.ZodType> = Omit<RouteSpec<B, R>, 'method' | 'family' | 'status'> & {
  method?: RouteSpec['method'];
  status?: number;
  response: R;
};

/** What a data handler is given: the caller, the parsed body, and the path's `:id` (empty on a route without one). */
interface DataInput<B extends Schema> {
  principal: Principal;
  body: B extends z.ZodType ? z.infer<B> : undefined;
  id: string;
}

/**
 * A JSON route of a resource (keys, destinations, tasks, models): its handler gives only what goes
 * under `data`, the answer being `{ data }` with the route's status.
 */
export function addDataRoute<B extends Schema = undefined, R extends z.ZodType = z.ZodType>(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  spec: DataRouteSpec<B, R>,
  data: (input: DataInput<NoInfer<B>>, c: Context<ApiEnv>) => Promise<DataOf<z.input<NoInfer<R>>>>,
): void {
  const full = { method: 'get', family: 'resource', status: 200, ...spec } as RouteSpec<z.ZodType, z.ZodType>;
  // The handler's data is typed by the response schema above; the route's own check is then one of shape only.
  addRoute<z.ZodType, z.ZodType>(app, deps, { ...full, response: spec.response }, async (c, { principal, body }) => ({
    body: { data: await data({ principal, body, id: c.req.param('id') ?? '' } as DataInput<B>, c) },
  }));
}
