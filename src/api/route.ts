import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { AppError, type ErrorCode } from '../domain/errors.js';
import type { Principal, RouteGuard } from '../services/auth.js';
import type { ApiDeps, ApiEnv } from './api-deps.js';
import { parseJsonBody, type SchemaFamily } from './body.js';
import { enforceKeyRateLimit } from './rate-limit.js';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

type Schema = z.ZodType | undefined;

/** Everything known about a route: used to mount it and to describe it. */
export interface RouteSpec<B extends Schema = Schema, R extends Schema = Schema> {
  method: Method;
  /** Hono path syntax: `/api-key/:id`. */
  path: string;
  summary: string;
  /** Credentials and scope; omitted for public routes. */
  guard?: RouteGuard;
  /**
   * Also takes a PAT as `?token=` when no Authorization header is sent (browsers' EventSource
   * cannot set headers); any other credential there is refused, never read from a URL.
   */
  patInQuery?: boolean;
  /** For the API description: what the summary leaves out (an event stream's events). */
  description?: string;
  family: SchemaFamily;
  /** The body schema, or a function giving it when it depends on config (generate's model ids). */
  body?: B | (() => B);
  /** Status of a successful answer. */
  status: number;
  /** Request error codes the route can answer with, beyond the auth ones. */
  errors?: ErrorCode[];
  /**
   * The schema of a successful JSON answer. The handler's reply is typed by it, the API
   * description shows it, and the API tests check every answer against it. Omitted only for
   * routes that answer something else, with `produces` naming it.
   */
  response?: R;
  /** The content type of a route without a JSON answer (an image, the HTML reference). */
  produces?: string;
  /** Kept out of the API description (tests' own routes). */
  internal?: boolean;
  /** For the API description: the query and header parameters the handler reads, as the schemas it parses them with. */
  query?: z.ZodObject;
  headers?: z.ZodObject;
  /** For the API description: success answers besides `status` (a JSON one's body is also within `response`). */
  also?: { status: number; description: string; schema?: z.ZodType; headers?: Record<string, string> }[];
}

interface RouteInput<B extends Schema> {
  principal: Principal;
  body: B extends z.ZodType ? z.infer<B> : undefined;
}

/**
 * What a handler of a JSON route answers: the body its response schema describes, and a status when it is not the
 * route's own.
 */
export interface Reply<Body> {
  body: Body;
  status?: ContentfulStatusCode;
}

type Handler<B extends Schema, Answer> = (c: Context<ApiEnv>, input: RouteInput<NoInfer<B>>) => Promise<Answer>;

/** `?token=` as a bearer credential: a PAT only (a URL ends up in logs and histories; an API key must not). */
function patFromQuery(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (!token.startsWith('pat_'))
    throw new AppError(
      'UNAUTHORIZED',
      '?token= takes a public access token (pat_…) only; send an API key in the header Authorization: Bearer <key>',
    );
  return `Bearer ${token}`;
}

/** The request's credential as an Authorization value: the header, or on a route that allows it a PAT in `?token=`. */
export function requestCredential(c: Context, patInQuery = false): string | undefined {
  return c.req.header('authorization') ?? (patInQuery ? patFromQuery(c.req.query('token')) : undefined);
}

const ROUTES = new WeakMap<object, RouteSpec[]>();

/** The routes mounted on an app through addRoute, in order: what the API description describes. */
export const routesOf = (app: object): RouteSpec[] => ROUTES.get(app) ?? [];

/**
 * Mounts a route: authenticate → authorize → bounded body → validate → handler → answer.
 * Auth runs before the body is read, so an anonymous caller never gets to make the server read it.
 * A route with a response schema gets its handler's reply checked against it at compile time
 * and sent as JSON; a route without one (an image, the HTML reference) answers a raw Response.
 */
export function addRoute<B extends Schema = undefined, R extends z.ZodType = z.ZodType>(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  spec: RouteSpec<B, R> & { response: R },
  handler: Handler<B, Reply<z.input<NoInfer<R>>>>,
): void;
export function addRoute<B extends Schema = undefined>(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  spec: RouteSpec<B, undefined> & { response?: undefined; produces: string },
  handler: Handler<B, Response>,
): void;
export function addRoute(
  app: Hono<ApiEnv>,
  deps: ApiDeps,
  spec: RouteSpec,
  handler: Handler<Schema, Reply<unknown> | Response>,
): void {
  if (!ROUTES.has(app)) ROUTES.set(app, []);
  ROUTES.get(app)!.push(spec);
  app.on(spec.method.toUpperCase(), spec.path, async (c) => {
    let principal = undefined as unknown as Principal;
    if (spec.guard) {
      principal = await deps.auth.authenticate(requestCredential(c, spec.patInQuery));
      // Every request a limited key authenticates counts, refused ones included.
      await enforceKeyRateLimit(c, deps.apiKeys, principal);
      deps.auth.authorize(principal, spec.guard, c.req.param());
      c.set('principal', principal);
    }
    const schema = typeof spec.body === 'function' ? spec.body() : spec.body;
    const body = schema
      ? await parseJsonBody(c, schema, spec.family, deps.config.current().server.bodyLimitBytes)
      : undefined;
    const reply = await handler(c, { principal, body: body as undefined });
    if (!spec.response) return reply as Response;
    const { body: answer, status } = reply as Reply<unknown>;
    return c.json(answer as object, status ?? (spec.status as ContentfulStatusCode));
  });
}
