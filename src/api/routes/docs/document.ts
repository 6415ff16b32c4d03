import type { Config } from '../../../config/schema.js';
import type { ApiDeps } from '../../api-deps.js';
import { buildOpenApi } from '../../openapi/document.js';
import type { RouteSpec } from '../../route.js';

const DOCUMENTED = new WeakMap<object, RouteSpec[]>();
const CACHE = new WeakMap<object, { config: Config; doc: ReturnType<typeof buildOpenApi> }>();

/** Fixes what the description describes: the routes mounted on `app` so far. */
export const setDocumented = (app: object, routes: RouteSpec[]): void => {
  DOCUMENTED.set(app, routes);
};

/** The API description, built once per config (model ids are in the schemas). */
export function documentOf(app: object, deps: ApiDeps, base: string) {
  const config = deps.config.current();
  let cached = CACHE.get(app);
  if (!cached || cached.config !== config) {
    const doc = buildOpenApi(DOCUMENTED.get(app) ?? [], config.publicUrl ?? base);
    cached = { config, doc };
    CACHE.set(app, cached);
  }
  return cached;
}
