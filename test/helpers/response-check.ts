import type { z } from 'zod';
import { type RouteSpec, routesOf } from '../../src/api/route.js';
import { TASK_MODULES } from '../../src/task-types/task-modules.js';

const BUILT_IN = new Set<string>(TASK_MODULES.map((m) => m.type));
const isForeignTask = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { type?: unknown }).type === 'string' &&
  !BUILT_IN.has((value as { type: string }).type);

/**
 * Checks answers against the response schemas their routes declare: every API test thereby
 * tests the API description and the client's types too. Tasks of test-only types are left
 * out (the schemas describe the built-in ones).
 */
export function createResponseChecker(app: object) {
  const routes = routesOf(app)
    .filter((route): route is RouteSpec & { response: z.ZodType } => route.response !== undefined)
    .map((route) => ({ route, pattern: new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`) }));

  return (method: string, path: string, status: number, json: unknown): void => {
    if (status < 200 || status >= 300 || json === undefined) return;
    const bare = path.split('?')[0];
    const match = routes.find(({ route, pattern }) => route.method === method.toLowerCase() && pattern.test(bare));
    if (!match) return;
    let body = json as { data?: unknown };
    if (isForeignTask(body.data)) return;
    if (Array.isArray(body.data) && body.data.some(isForeignTask))
      body = { ...body, data: body.data.filter((item) => !isForeignTask(item)) };
    const parsed = match.route.response.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      throw new Error(
        `${method} ${path} answered ${status} outside its response schema: ${issues}\n${JSON.stringify(json).slice(0, 2000)}`,
      );
    }
  };
}
