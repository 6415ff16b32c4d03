/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { RotateApiKeyBody } from '../../api/routes/api-keys/rotate.js';
import { attempt, type Refusal, schemaRefusal } from '../components/refusal.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import { principalOf, readForm, readFormAll, render, seeOther } from '../console-http.js';
import { accountHolder } from '../key-principal.js';
import { EditKeyPage, editBody, editValuesFrom, editValuesOf } from './edit-form.js';
import { keyBody, keyFormValues } from './key-form.js';
import { DEFAULT_GRACE } from './key-table.js';
import { KeysPage, loadKeys } from './keys-page.js';

/**
 * Keys: the account's live keys, create (the raw key shown once), rotate, delete, usage per key. Scope `keys`, as
 * /api-key.
 */
export function registerKeys(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  /** The signed-in account holder, allowed what POST/GET /api-key allow. */
  const holder = accountHolder(deps, 'keys');

  app.get('/keys', async (c) => {
    const session = holder(c);
    return render(
      c,
      <KeysPage session={session} data={await loadKeys(deps, session.accountId)} done={c.req.query('done')} />,
    );
  });

  app.post('/keys', async (c) => {
    const session = holder(c);
    const values = keyFormValues(await readFormAll(c));
    const checked = keyBody(values);
    const refusedPage = async (refusal: Refusal) =>
      render(
        c,
        <KeysPage session={session} data={await loadKeys(deps, session.accountId)} values={values} refusal={refusal} />,
        refusal.status,
      );
    if ('refused' in checked) return refusedPage(checked.refused);
    const created = await attempt(() =>
      deps.apiKeys.create({
        ...checked.body,
        accountId: session.accountId,
        creatorScopes: principalOf(session).scopes,
      }),
    );
    if ('refused' in created) return refusedPage(created.refused);
    // The raw key is in this answer only: rendered here, never stored, never behind a redirect.
    return render(
      c,
      <KeysPage
        session={session}
        data={await loadKeys(deps, session.accountId)}
        fresh={{ kind: 'created', ...created.ok }}
      />,
      201,
    );
  });

  app.get('/keys/:id/edit', async (c) => {
    const session = holder(c);
    const keyView = await deps.apiKeys.get(session.accountId, c.req.param('id'));
    return render(c, <EditKeyPage session={session} keyView={keyView} values={editValuesOf(keyView)} />);
  });

  app.post('/keys/:id', async (c) => {
    const session = holder(c);
    const keyView = await deps.apiKeys.get(session.accountId, c.req.param('id'));
    const values = editValuesFrom(await readForm(c));
    const checked = editBody(values, keyView);
    const refusedPage = (refusal: Refusal) =>
      render(c, <EditKeyPage session={session} keyView={keyView} values={values} refusal={refusal} />, refusal.status);
    if ('refused' in checked) return refusedPage(checked.refused);
    if (Object.values(checked.body).every((value) => value === undefined))
      return seeOther(c, '/console/keys?done=unchanged');
    const updated = await attempt(() => deps.apiKeys.update(session.accountId, keyView.id, checked.body));
    if ('refused' in updated) return refusedPage(updated.refused);
    return seeOther(c, '/console/keys?done=updated');
  });

  app.post('/keys/:id/rotate', async (c) => {
    const session = holder(c);
    const form = await readForm(c);
    const parsed = RotateApiKeyBody.safeParse({
      graceSeconds: form.graceSeconds ? Number(form.graceSeconds) : DEFAULT_GRACE,
    });
    if (!parsed.success)
      return render(
        c,
        <KeysPage
          session={session}
          data={await loadKeys(deps, session.accountId)}
          refusal={schemaRefusal(parsed.error, { graceSeconds: 'Old key' })}
        />,
        400,
      );
    const rotated = await attempt(() =>
      deps.apiKeys.rotate(session.accountId, c.req.param('id'), parsed.data.graceSeconds),
    );
    if ('refused' in rotated)
      return render(
        c,
        <KeysPage session={session} data={await loadKeys(deps, session.accountId)} refusal={rotated.refused} />,
        rotated.refused.status,
      );
    return render(
      c,
      <KeysPage
        session={session}
        data={await loadKeys(deps, session.accountId)}
        fresh={{ kind: 'rotated', ...rotated.ok }}
      />,
      201,
    );
  });

  app.post('/keys/:id/delete', async (c) => {
    const session = holder(c);
    await deps.apiKeys.revoke(session.accountId, c.req.param('id'));
    return seeOther(c, '/console/keys?done=deleted');
  });
}
