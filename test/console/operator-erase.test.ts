import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAdminOp } from '../../src/app/admin/ops.js';
import { consoleSignIn } from '../helpers/console.js';
import { send, startService, waitForTask } from '../helpers/harness.js';

test("the operator view shows each account's retention, its own settings marked", async (t) => {
  const h = await startService(t, { config: { retention: { uploads: '30d' } } });
  await runAdminOp(h.server.services.admin, 'accounts.set', { account: 'acme', retention: { outputs: '7d' } });
  const page = await (await consoleSignIn(h, { operator: true })).get('/console/operator');
  assert.equal(page.status, 200);
  assert.match(page.text, /<th scope="col">Kept \(retention\)<\/th>/);
  assert.match(page.text, /outputs 7d<span class="muted"> \(own\)<\/span>, uploads 30d, tasks off<\/td>/);
});

test('the operator view erases an account once its name is typed again; another name erases nothing', async (t) => {
  const h = await startService(t);
  const created = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { metadata: { order: 'o-9' } } });
  const task = await waitForTask(h, created.json.data.taskId);
  const web = await consoleSignIn(h, { operator: true });
  const page = await web.get('/console/operator');
  assert.match(
    page.text,
    new RegExp(
      `<form method="post" action="/console/operator/accounts/erase"><input type="hidden" name="_csrf" value="[^"]+"/><input type="hidden" name="account" value="${h.accountId}"/>`,
    ),
  );
  assert.match(page.text, /<label for="erase-acc_\w+">Type its name, <strong>acme<\/strong>, to erase it<\/label>/);

  const wrong = await web.post('/console/operator/accounts/erase', { account: h.accountId, confirm: 'acm' });
  assert.equal(wrong.status, 400);
  assert.match(wrong.text, /Not erased: type the account&#39;s name, acme, to confirm\./);
  assert.equal((await h.server.services.store.accounts.get(h.accountId))!.name, 'acme', 'nothing erased');
  assert.equal((await send(h.url, 'GET', `/tasks/${task.id}`, { auth: h.apiKey })).status, 200);

  const unknown = await web.post('/console/operator/accounts/erase', { account: 'acc_nope', confirm: 'acme' });
  assert.equal(unknown.status, 404);

  const erased = await web.post('/console/operator/accounts/erase', { account: h.accountId, confirm: 'acme' });
  assert.equal(erased.status, 303);
  assert.equal(erased.location, '/console/operator?done=erased#accounts-title');
  const after = await web.get(erased.location!);
  assert.match(after.text, /Account erased: its keys are revoked, its data removed, and its name is now its id\./);
  assert.match(
    after.text,
    new RegExp(`<th scope="row">${h.accountId} <span class="muted mono">${h.accountId}</span></th>`),
  );
  assert.match(after.text, /<span class="muted">erased \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/span>/);
  const account = (await h.server.services.store.accounts.get(h.accountId))!;
  assert.ok(account.erasedAt);
  assert.ok((await h.server.services.store.tasks.get(task.id))!.dataRemovedAt);
  assert.equal((await send(h.url, 'GET', `/tasks/${task.id}`, { auth: h.apiKey })).status, 401, 'its key is revoked');
});

test("an account's session cannot erase, and a post without the form token is refused", async (t) => {
  const h = await startService(t);
  const own = await consoleSignIn(h);
  const refused = await own.post('/console/operator/accounts/erase', { account: h.accountId, confirm: 'acme' });
  assert.equal(refused.status, 403);
  const operator = await consoleSignIn(h, { operator: true });
  const forged = await operator.post('/console/operator/accounts/erase', {
    _csrf: 'forged',
    account: h.accountId,
    confirm: 'acme',
  });
  assert.equal(forged.status, 401, 'a form without the session token');
  assert.equal((await h.server.services.store.accounts.get(h.accountId))!.erasedAt, undefined);
});
