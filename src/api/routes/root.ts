import type { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../api-deps.js';
import { dataOf } from '../common-schemas.js';
import { addRoute } from '../route.js';
import { documentOf } from './docs/document.js';

const RootResponse = dataOf(
  z.object({
    name: z.literal('imgtask'),
    version: z.string().describe("the service's version (the API description's)"),
    links: z
      .object({
        docs: z.string().describe('the API reference, a page'),
        openapi: z.string().describe('the API description, OpenAPI 3.1'),
        console: z.string().describe('the web console (sign in with a link from imgtask console)'),
        health: z.string().describe('liveness'),
      })
      .describe('absolute URLs, on server.publicUrl when it is set'),
  }),
);

/** A browser asks for a page: it goes to the console; anything else gets the index. */
const wantsPage = (accept: string | undefined): boolean => accept?.includes('text/html') ?? false;

/**
 * GET /: the first URL the server prints. A browser is sent to the console (302); a client such
 * as curl gets a small index of where to go (the reference, the description, the console, health).
 */
export function registerRoot(app: Hono<ApiEnv>, deps: ApiDeps): void {
  // Before the described route: the same path, answered with a redirect when a page is wanted.
  app.get('/', async (c, next) => {
    c.header('vary', 'Accept');
    if (wantsPage(c.req.header('accept'))) return c.redirect('/console', 302);
    await next();
  });
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/',
      summary:
        'Where to go: the service name and version, and links to the reference, the description, the console and health; a browser (Accept: text/html) is redirected to /console',
      family: 'resource',
      status: 200,
      response: RootResponse,
      also: [
        {
          status: 302,
          description: 'Found: the request accepts text/html (a browser); Location is /console',
          headers: { Location: '/console' },
        },
      ],
    },
    async (c) => {
      const base = deps.config.current().publicUrl?.replace(/\/+$/, '') ?? new URL(c.req.url).origin;
      const { doc } = documentOf(app, deps, base);
      return {
        body: {
          data: {
            name: 'imgtask' as const,
            version: doc.info.version,
            links: {
              docs: `${base}/docs`,
              openapi: `${base}/openapi.json`,
              console: `${base}/console`,
              health: `${base}/health`,
            },
          },
        },
      };
    },
  );
}
