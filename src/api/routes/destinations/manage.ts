import type { Hono } from 'hono';
import { z } from 'zod';
import { DESTINATION_CONFIGS, DESTINATION_PROVIDERS } from '../../../services/destinations.js';
import { DestinationName } from '../../../tasks/request-parts.js';
import { addRoute } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';

/** `{ name, provider: { id }, config }`, the config checked against the provider's own schema. */
export const CreateDestinationBody = z
  .object({ name: DestinationName, provider: z.object({ id: z.enum(DESTINATION_PROVIDERS) }), config: z.record(z.string(), z.unknown()) })
  .superRefine((body, ctx) => {
    const parsed = DESTINATION_CONFIGS[body.provider.id].safeParse(body.config);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['config', ...issue.path] } as never);
  });

export const UpdateDestinationBody = z.object({ name: DestinationName.optional(), provider: z.object({ id: z.string().min(1) }).optional(), config: z.record(z.string(), z.unknown()).optional() });

const guard = { accept: ['accessToken'] as ('accessToken')[], scope: 'manage' as const };

/** Destinations (SPEC part 2): every route takes an access token with `manage`. */
export function registerDestinationRoutes(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    { method: 'post', path: '/destinations', summary: 'Create a destination', guard, family: 'resource', body: CreateDestinationBody, status: 201, errors: ['DESTINATION_NAME_TAKEN', 'VALIDATION_ERROR', 'UNKNOWN_ERROR'] },
    async (c, { principal, body }) => c.json({ data: await deps.destinations.create(principal.accountId, body) }, 201),
  );
  addRoute(app, deps, { method: 'get', path: '/destinations', summary: "List the account's destinations", guard, family: 'resource', status: 200, errors: ['UNKNOWN_ERROR'] }, async (c, { principal }) =>
    c.json({ data: await deps.destinations.list(principal.accountId) }),
  );
  addRoute(app, deps, { method: 'get', path: '/destinations/:id', summary: 'Read a destination (secrets masked)', guard, family: 'resource', status: 200, errors: ['DESTINATION_NOT_FOUND', 'UNKNOWN_ERROR'] }, async (c, { principal }) =>
    c.json({ data: await deps.destinations.get(principal.accountId, c.req.param('id')!) }),
  );
  addRoute(
    app,
    deps,
    {
      method: 'patch',
      path: '/destinations/:id',
      summary: 'Rename or reconfigure a destination; masked secrets sent back keep their values',
      guard,
      family: 'resource',
      body: UpdateDestinationBody,
      status: 200,
      errors: ['DESTINATION_NOT_FOUND', 'DESTINATIONS_INVALID_PROVIDER', 'DESTINATION_NAME_TAKEN', 'VALIDATION_ERROR', 'UNKNOWN_ERROR'],
    },
    async (c, { principal, body }) => c.json({ data: await deps.destinations.update(principal.accountId, c.req.param('id')!, body) }),
  );
  addRoute(app, deps, { method: 'delete', path: '/destinations/:id', summary: 'Delete a destination', guard, family: 'resource', status: 200, errors: ['DESTINATION_NOT_FOUND'] }, async (c, { principal }) => {
    await deps.destinations.delete(principal.accountId, c.req.param('id')!);
    return c.json({ data: { id: c.req.param('id')!, deleted: true } });
  });
  addRoute(
    app,
    deps,
    { method: 'post', path: '/destinations/:id/test', summary: 'Write a small test object; 502 with the storage message when it refuses', guard, family: 'resource', status: 200, errors: ['DESTINATION_NOT_FOUND', 'DESTINATION_TEST_FAILED', 'UNKNOWN_ERROR'] },
    async (c, { principal }) => c.json({ data: await deps.destinations.test(principal.accountId, c.req.param('id')!) }),
  );
}
