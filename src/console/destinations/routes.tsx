/** @jsxImportSource hono/jsx */

import type { Context, Hono } from 'hono';
import { attempt, type Refusal } from '../components/refusal.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import type { AccountSession } from '../console-http.js';
import { readForm, render, seeOther } from '../console-http.js';
import { accountHolder } from '../key-principal.js';
import { createBody, type DestinationFormValues, destinationFormValues, updateBody } from './destination-form.js';
import { DestinationPage, DestinationsPage } from './destinations-page.js';

/** Destinations: list, add, edit, test upload, delete. Scope `manage`, as /destinations. */
export function registerDestinations(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const holder = accountHolder(deps, 'manage');
  const allowedRoots = () => deps.config.current().destinations.local.allowedRoots;

  const listPage = async (
    c: Context<ConsoleEnv>,
    session: AccountSession,
    extra: { values?: DestinationFormValues; refusal?: Refusal; done?: string } = {},
  ) =>
    render(
      c,
      <DestinationsPage
        session={session}
        destinations={await deps.destinations.list(session.accountId)}
        allowedRoots={allowedRoots()}
        {...extra}
      />,
      extra.refusal?.status ?? 200,
    );

  const onePage = async (
    c: Context<ConsoleEnv>,
    session: AccountSession,
    extra: Omit<Parameters<typeof DestinationPage>[0], 'session' | 'destination' | 'allowedRoots'> = {},
  ) =>
    render(
      c,
      <DestinationPage
        session={session}
        destination={await deps.destinations.get(session.accountId, c.req.param('id')!)}
        allowedRoots={allowedRoots()}
        {...extra}
      />,
      extra.refusal?.status ?? 200,
    );

  app.get('/destinations', (c) => listPage(c, holder(c), { done: c.req.query('done') }));

  app.post('/destinations', async (c) => {
    const session = holder(c);
    const values = destinationFormValues(await readForm(c));
    const checked = createBody(values);
    if ('refused' in checked) return listPage(c, session, { values, refusal: checked.refused });
    const created = await attempt(() => deps.destinations.create(session.accountId, checked.body));
    if ('refused' in created) return listPage(c, session, { values, refusal: created.refused });
    return seeOther(c, `/console/destinations/${created.ok.id}?done=created`);
  });

  app.get('/destinations/:id', (c) => onePage(c, holder(c), { done: c.req.query('done') }));

  app.post('/destinations/:id', async (c) => {
    const session = holder(c);
    const id = c.req.param('id');
    await deps.destinations.get(session.accountId, id);
    const values = destinationFormValues(await readForm(c));
    const checked = updateBody(values);
    if ('refused' in checked) return onePage(c, session, { values, refusal: checked.refused });
    const updated = await attempt(() => deps.destinations.update(session.accountId, id, checked.body));
    if ('refused' in updated) return onePage(c, session, { values, refusal: updated.refused });
    return seeOther(c, `/console/destinations/${id}?done=saved`);
  });

  // The outcome is shown in the answer (a redirect could not carry the storage's message): success, or its refusal as
  // text.
  app.post('/destinations/:id/test', async (c) => {
    const session = holder(c);
    const tested = await attempt(() => deps.destinations.test(session.accountId, c.req.param('id')));
    return 'refused' in tested
      ? onePage(c, session, { refusal: tested.refused })
      : onePage(c, session, { tested: tested.ok });
  });

  app.post('/destinations/:id/delete', async (c) => {
    const session = holder(c);
    await deps.destinations.delete(session.accountId, c.req.param('id'));
    return seeOther(c, '/console/destinations?done=deleted');
  });
}
