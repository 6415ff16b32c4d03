import type { Hono } from 'hono';
import type { ErrorCode } from '../../../domain/errors.js';
import { addRoute, type RouteSpec } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { CreateWebhookBody, UpdateWebhookBody } from './schemas.js';

const GUARD = { accept: ['accessToken'] as const, scope: 'manage' as const };
const spec = <S extends RouteSpec['body']>(method: RouteSpec['method'], path: string, summary: string, status: number, body?: S, errors: ErrorCode[] = ['WEBHOOK_NOT_FOUND']) =>
  ({ method, path, summary, guard: { accept: [...GUARD.accept], scope: GUARD.scope }, family: 'resource' as const, body, status, errors }) as RouteSpec<S extends undefined ? undefined : NonNullable<S> extends () => infer R ? R : NonNullable<S>>;

/** The webhook resource (SPEC part 2) and its management: every route takes an access token with `manage`. */
export function registerWebhookRoutes(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(app, deps, spec('post', '/webhook', 'Create a dashboard webhook; the answer carries its signing secret', 201, CreateWebhookBody, ['WEBHOOK_API_KEY_NOT_FOUND']), async (c, { principal, body }) =>
    c.json({ data: await deps.webhooks.create(principal.accountId, body) }, 201),
  );
  addRoute(app, deps, spec('get', '/webhook', "List the account's webhooks", 200, undefined, []), async (c, { principal }) => c.json({ data: await deps.webhooks.list(principal.accountId) }));
  addRoute(app, deps, spec('get', '/webhook/:id', 'Read a webhook', 200), async (c, { principal }) => c.json({ data: await deps.webhooks.get(principal.accountId, c.req.param('id')!) }));
  addRoute(app, deps, spec('patch', '/webhook/:id', 'Update url, events, apiKeyIds or enabled', 200, UpdateWebhookBody, ['WEBHOOK_NOT_FOUND', 'WEBHOOK_API_KEY_NOT_FOUND']), async (c, { principal, body }) =>
    c.json({ data: await deps.webhooks.update(principal.accountId, c.req.param('id')!, body) }),
  );
  addRoute(app, deps, spec('delete', '/webhook/:id', 'Delete a webhook; its pending deliveries are dropped', 200), async (c, { principal }) => {
    await deps.webhooks.delete(principal.accountId, c.req.param('id')!);
    return c.json({ data: { id: c.req.param('id')!, deleted: true } });
  });
  addRoute(app, deps, spec('post', '/webhook/:id/rotate-secret', 'Replace the signing secret; the answer carries the new one', 200), async (c, { principal }) =>
    c.json({ data: await deps.webhooks.rotateSecret(principal.accountId, c.req.param('id')!) }),
  );
  addRoute(app, deps, spec('post', '/webhook/:id/test', 'Send a webhook.test event to this webhook', 202), async (c, { principal }) =>
    c.json({ data: await deps.outbox.sendTest(principal.accountId, c.req.param('id')!) }, 202),
  );
  addRoute(app, deps, spec('get', '/webhook/:id/deliveries', "A webhook's deliveries, newest first, with every attempt (status, latency)", 200), async (c, { principal }) =>
    c.json({ data: await deps.outbox.deliveries(principal.accountId, c.req.param('id')!) }),
  );
  addRoute(app, deps, spec('post', '/webhook/deliveries/:deliveryId/redeliver', 'Send a delivery again (same event id)', 202), async (c, { principal }) =>
    c.json({ data: await deps.outbox.redeliver(principal.accountId, c.req.param('deliveryId')!) }, 202),
  );
}
