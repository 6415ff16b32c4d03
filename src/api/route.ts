import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { ErrorCode } from '../domain/errors.js';
import type { Principal, RouteGuard } from '../services/auth.js';
import { parseJsonBody, type SchemaFamily } from './body.js';
import type { ApiDeps, ApiEnv } from './types.js';

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** Everything known about a route: used to mount it and, later, to describe it. */
export interface RouteSpec<S extends z.ZodType | undefined = z.ZodType | undefined> {
  method: Method;
  /** Hono path syntax: `/api-key/:id`. */
  path: string;
  summary: string;
  /** Credentials and scope; omitted for public routes. */
  guard?: RouteGuard;
  family: SchemaFamily;
  /** The body schema, or a function giving it when it depends on config (generate's model ids). */
  body?: S | (() => S);
  /** Status of a successful answer. */
  status: number;
  /** Request error codes the route can answer with, beyond the auth ones. */
  errors?: ErrorCode[];
  /** The schema of a successful answer, for the API description. */
  response?: z.ZodType;
  /** Kept out of the API description (tests' own routes). */
  internal?: boolean;
}

export interface RouteInput<S> {
  principal: Principal;
  body: S extends z.ZodType ? z.infer<S> : undefined;
}

const ROUTES = new WeakMap<object, RouteSpec[]>();

/** The routes mounted on an app through addRoute, in order: what the API description describes. */
export const routesOf = (app: object): RouteSpec[] => ROUTES.get(app) ?? [];

/**
 * Mounts a route: authenticate → authorize → bounded body → validate → handler. Auth runs
 * before the body is read, so an anonymous caller never gets to make the server read it.
 */
export function addRoute<S extends z.ZodType | undefined>(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  spec: RouteSpec<S>,
  handler: (c: Context<ApiEnv>, input: RouteInput<S>) => Promise<Response> | Response,
): void {
  if (!ROUTES.has(app)) ROUTES.set(app, []);
  ROUTES.get(app)!.push(spec as RouteSpec);
  app.on(spec.method.toUpperCase(), spec.path, async (c) => {
    let principal = undefined as unknown as Principal;
    if (spec.guard) {
      principal = await deps.auth.authenticate(c.req.header('authorization'));
      deps.auth.authorize(principal, spec.guard);
      c.set('principal', principal);
    }
    const schema = typeof spec.body === 'function' ? spec.body() : spec.body;
    const body = schema ? await parseJsonBody(c, schema, spec.family, deps.config.current().server.bodyLimitBytes) : undefined;
    return handler(c, { principal, body: body as RouteInput<S>['body'] });
  });
}
