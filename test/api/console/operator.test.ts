import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../../helpers/console.js';
import { eventually, startService } from '../../helpers/harness.js';

test('the operator view lists every account with its money and credit, every key, and the doctor result', async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('globex', 10_000_000);
  await h.server.services.accounts.credit(other.id, 2_500_000, 'top-up');
  const limited = await h.server.services.apiKeys.create({ accountId: other.id, name: 'globex-batch', scopes: ['image:generate'], spendingLimit: 3_000_000, spendingLimitPeriod: 'month' });
  const [harnessKey] = await h.server.services.apiKeys.list(h.accountId);

  const web = await consoleSignIn(h, { operator: true });
  const page = await web.get('/console/operator');
  assert.equal(page.status, 200);
  assert.match(
    page.text,
    /<th scope="row">acme <span class="muted mono">acc_\w+<\/span><\/th><td class="num">100\.00<\/td><td class="num">0\.00<\/td><td class="num">100\.00<\/td><td class="num">100\.00<\/td><td class="num">1<\/td>/,
  );
  assert.match(
    page.text,
    /<th scope="row">globex <span class="muted mono">acc_\w+<\/span><\/th><td class="num">12\.50<\/td><td class="num">0\.00<\/td><td class="num">12\.50<\/td><td class="num">12\.50<\/td><td class="num">1<\/td>/,
  );
  assert.match(page.text, new RegExp(`<th scope="row">harness</th><td class="mono">${harnessKey.keyPreview}</td><td>acme</td>`));
  assert.match(
    page.text,
    new RegExp(`<th scope="row">globex-batch</th><td class="mono">${limited.apiKey.keyPreview}</td><td>globex</td><td>image:generate</td><td>0\\.00 of 3\\.00 USD this month</td><td>never</td>`),
  );
  assert.match(page.text, /<span class="status-ok">OK<\/span>: the checks of <code>imgtask doctor<\/code> found no problem/);
});

test('the operator view shows the pending tasks and the lanes running them', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, delayMs: 60_000 } });
  assert.equal(res.status, 201, res.text);
  const web = await consoleSignIn(h, { operator: true });
  await eventually(async () => /<th scope="row">test<\/th><td class="num">1<\/td>/.test((await web.get('/console/operator')).text));
  const page = await web.get('/console/operator');
  assert.match(page.text, /<div class="label">Tasks pending<\/div><div class="value">1<\/div>/);
});

test('an account session gets 403 at the operator view, and no session is sent to sign in', async (t) => {
  const h = await startService(t);
  const web = await consoleSignIn(h);
  const refused = await web.get('/console/operator');
  assert.equal(refused.status, 403);
  assert.match(refused.text, /FORBIDDEN/);
  assert.doesNotMatch(refused.text, /harness/, 'no key of any account');
  const anonymous = await fetch(`${h.url}/console/operator`, { redirect: 'manual' });
  assert.equal(anonymous.status, 303);
});

test('a key name with markup shows as text on the operator view', async (t) => {
  const h = await startService(t);
  const payload = '<script>alert("key")</script>';
  await h.server.services.apiKeys.create({ accountId: h.accountId, name: payload });
  const page = await (await consoleSignIn(h, { operator: true })).get('/console/operator');
  assert.equal(page.status, 200);
  assert.ok(!page.text.includes(payload), 'the name is never markup');
  assert.ok(page.text.includes('<th scope="row">&lt;script&gt;alert(&quot;key&quot;)&lt;/script&gt;</th>'));
});

test("the operator view shows each account's scheduling weight, 1 when never set", async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('globex', 0);
  await h.server.services.accounts.setWeight(other.id, 4);
  const page = await (await consoleSignIn(h, { operator: true })).get('/console/operator');
  assert.equal(page.status, 200);
  assert.match(page.text, /<th scope="col" class="num">Live keys<\/th><th scope="col" class="num">Weight<\/th>/);
  assert.match(page.text, /<th scope="row">acme <span class="muted mono">acc_\w+<\/span><\/th>(<td class="num">[^<]*<\/td>){5}<td class="num">1<\/td><\/tr>/);
  assert.match(page.text, /<th scope="row">globex <span class="muted mono">acc_\w+<\/span><\/th>(<td class="num">[^<]*<\/td>){5}<td class="num">4<\/td><\/tr>/);
  assert.match(page.text, /imgtask accounts set NAME --weight N/);
});
