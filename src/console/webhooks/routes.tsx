/** @jsxImportSource hono/jsx */
import type { Context, Hono } from 'hono';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { attempt, type Refusal } from '../components/refusal.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import { readFormAll, render, seeOther } from '../console-http.js';
import { accountHolder } from '../key-principal.js';
import { createBody, updateBody, type WebhookFormValues, webhookFormValues } from './webhook-form.js';
import { loadWebhook, loadWebhooks, WebhookPage, WebhooksPage } from './webhooks-page.js';

/**
 * Webhooks: list, add (the secret shown once), edit, test, delete, the delivery log with redeliver, secret rotation.
 * Scope `manage`, as /webhook.
 */
export function registerWebhooks(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const holder = accountHolder(deps, 'manage');

  app.get('/webhooks', async (c) => {
    const session = holder(c);
    return render(
      c,
      <WebhooksPage session={session} {...(await loadWebhooks(deps, session.accountId))} done={c.req.query('done')} />,
    );
  });

  app.post('/webhooks', async (c) => {
    const session = holder(c);
    const values = webhookFormValues(await readFormAll(c));
    const refusedPage = async (refusal: Refusal) =>
      render(
        c,
        <WebhooksPage
          session={session}
          {...(await loadWebhooks(deps, session.accountId))}
          values={values}
          refusal={refusal}
        />,
        refusal.status,
      );
    const checked = createBody(values);
    if ('refused' in checked) return refusedPage(checked.refused);
    const created = await attempt(() => deps.webhooks.create(session.accountId, checked.body));
    if ('refused' in created) return refusedPage(created.refused);
    // The secret is in this answer only (never behind a redirect).
    const fresh = await deps.webhooks.operatorView(session.accountId, created.ok.id);
    return render(
      c,
      <WebhooksPage session={session} {...(await loadWebhooks(deps, session.accountId))} created={fresh} />,
      201,
    );
  });

  app.get('/webhooks/:id', async (c) => {
    const session = holder(c);
    return render(
      c,
      <WebhookPage
        session={session}
        {...(await loadWebhook(deps, session.accountId, c.req.param('id')))}
        done={c.req.query('done')}
      />,
    );
  });

  /** The webhook's page again, answering a refused form with what was typed. */
  const refusedEdit = async (
    c: Context<ConsoleEnv>,
    session: ConsoleSession & { accountId: string },
    values: WebhookFormValues,
    refusal: Refusal,
  ) =>
    render(
      c,
      <WebhookPage
        session={session}
        {...(await loadWebhook(deps, session.accountId, c.req.param('id')!))}
        values={values}
        refusal={refusal}
      />,
      refusal.status,
    );

  app.post('/webhooks/:id', async (c) => {
    const session = holder(c);
    const id = c.req.param('id');
    await deps.webhooks.get(session.accountId, id);
    const values = webhookFormValues(await readFormAll(c));
    const checked = updateBody(values);
    if ('refused' in checked) return refusedEdit(c, session, values, checked.refused);
    const updated = await attempt(() => deps.webhooks.update(session.accountId, id, checked.body));
    if ('refused' in updated) return refusedEdit(c, session, values, updated.refused);
    return seeOther(c, `/console/webhooks/${id}?done=saved`);
  });

  app.post('/webhooks/:id/test', async (c) => {
    const session = holder(c);
    const id = c.req.param('id');
    await deps.webhooks.sendTest(session.accountId, id);
    return seeOther(c, `/console/webhooks/${id}?done=tested`);
  });

  app.post('/webhooks/:id/rotate-secret', async (c) => {
    const session = holder(c);
    const id = c.req.param('id');
    const { secret } = await deps.webhooks.rotateSecret(session.accountId, id);
    return render(
      c,
      <WebhookPage session={session} {...(await loadWebhook(deps, session.accountId, id))} rotated={secret} />,
    );
  });

  app.post('/webhooks/:id/delete', async (c) => {
    const session = holder(c);
    await deps.webhooks.delete(session.accountId, c.req.param('id'));
    return seeOther(c, '/console/webhooks?done=deleted');
  });

  app.post('/webhooks/:id/deliveries/:deliveryId/redeliver', async (c) => {
    const session = holder(c);
    const id = c.req.param('id');
    await deps.webhooks.get(session.accountId, id);
    // As POST /webhook/deliveries/{id}/redeliver: any delivery of the account's, sent again with the same event id.
    await deps.webhooks.redeliver(session.accountId, c.req.param('deliveryId'));
    return seeOther(c, `/console/webhooks/${id}?done=redelivered`);
  });
}
