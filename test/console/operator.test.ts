import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../helpers/console.js';
import { eventually, startService, waitForTask } from '../helpers/harness.js';

test('the operator view lists every account with its money and credit, every key, and the doctor result', async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('globex', 10_000_000);
  await h.server.services.accounts.credit(other.id, 2_500_000, 'top-up');
  const limited = await h.server.services.apiKeys.create({
    accountId: other.id,
    name: 'globex-batch',
    scopes: ['image:generate'],
    spendingLimit: 3_000_000,
    spendingLimitPeriod: 'month',
  });
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
  assert.match(
    page.text,
    new RegExp(`<th scope="row">harness</th><td class="mono">${harnessKey.keyPreview}</td><td>acme</td>`),
  );
  assert.match(
    page.text,
    new RegExp(
      `<th scope="row">globex-batch</th><td class="mono">${limited.apiKey.keyPreview}</td><td>globex</td><td>image:generate</td><td>0\\.00 of 3\\.00 USD this month</td><td>never</td>`,
    ),
  );
  assert.match(
    page.text,
    /<span class="status-ok">OK<\/span>: the checks of <code>imgtask doctor<\/code> found no problem/,
  );
});

test('the operator view shows the pending tasks and the lanes running them', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body: { items: 1, delayMs: 60_000 } });
  assert.equal(res.status, 201, res.text);
  const web = await consoleSignIn(h, { operator: true });
  // Queued 0, running 1 (on PostgreSQL the running count comes from the process's report, every 2 s).
  await eventually(
    async () =>
      /<th scope="row">test<\/th><td class="num">0<\/td><td class="num">1<\/td>/.test(
        (await web.get('/console/operator')).text,
      ),
    10_000,
  );
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
  assert.match(
    page.text,
    /<th scope="row">acme <span class="muted mono">acc_\w+<\/span><\/th>(<td class="num">[^<]*<\/td>){5}<td class="num">1<\/td><td>/,
  );
  assert.match(
    page.text,
    /<th scope="row">globex <span class="muted mono">acc_\w+<\/span><\/th>(<td class="num">[^<]*<\/td>){5}<td class="num">4<\/td><td>/,
  );
  assert.match(page.text, /imgtask accounts set NAME --weight N/);
});

test('the operator view lists the lanes (queued, running, capacity, oldest wait, state, top accounts) with a Pause button that pauses the lane everywhere, then Resume', async (t) => {
  const h = await startService(t, { config: { work: { lanes: { test: 1 } } } });
  const create = async (body: object) => {
    const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
    assert.equal(res.status, 201, res.text);
    return res.json.data.taskId as string;
  };
  const running = await create({ items: 1, delayMs: 60_000 });
  await eventually(() => (h.server.services.lanes.stats().test?.running ?? 0) === 1, 10_000);
  const queued = await create({ items: 2 });
  const web = await consoleSignIn(h, { operator: true });
  const row = /<tr><th scope="row">test<\/th>(.*?)<\/tr>/;
  await eventually(
    async () =>
      /^<td class="num">2<\/td><td class="num">1<\/td><td class="num">1<\/td>/.test(
        row.exec((await web.get('/console/operator')).text)?.[1] ?? '',
      ),
    10_000,
  );
  const page = (await web.get('/console/operator')).text;
  assert.match(
    page,
    /<th scope="col">Lane<\/th><th scope="col" class="num">Queued<\/th><th scope="col" class="num">Running<\/th><th scope="col" class="num">Capacity<\/th><th scope="col" class="num">Oldest wait<\/th><th scope="col">State<\/th><th scope="col">Top accounts \(queued\)<\/th><th scope="col">Action<\/th>/,
  );
  const cells = row.exec(page)![1];
  assert.match(cells, /<td class="num">\d+s<\/td><td>active<\/td><td>acme \d<\/td>/);
  assert.match(
    cells,
    /<form method="post" action="\/console\/operator\/lanes\/pause" class="inline" data-confirm="Pause the lane test on every process\?[^"]*">/,
  );
  assert.match(cells, /<input type="hidden" name="lane" value="test"\/>/);
  assert.match(
    cells,
    /<button type="submit" class="quiet">Pause<span class="visually-hidden"> lane test<\/span><\/button>/,
  );

  const paused = await web.post('/console/operator/lanes/pause', { lane: 'test' });
  assert.equal(paused.status, 303, paused.text);
  assert.equal(paused.location, '/console/operator?done=paused#lanes');
  assert.deepEqual(
    (await h.server.services.store.lanePauses.list()).map((pause) => pause.id),
    ['test'],
  );
  await eventually(() => h.server.services.lanes.stats().test?.paused === true, 10_000);
  const after = await web.get(paused.location!);
  assert.match(
    after.text,
    /<div class="notice ok" role="status">Lane paused on every process: its queued items wait, running items finish, new tasks are still accepted\.<\/div>/,
  );
  const pausedCells = row.exec(after.text)![1];
  assert.match(pausedCells, /<span class="badge pending">paused since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/span>/);
  assert.match(pausedCells, /action="\/console\/operator\/lanes\/resume" class="inline">/);
  assert.match(pausedCells, />Resume<span class="visually-hidden"> lane test<\/span>/);

  // The running item ends under the pause; the queued task waits, then runs once resumed.
  assert.equal((await h.request('POST', `/tasks/${running}/cancel`, { auth: h.apiKey })).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal((await h.request('GET', `/tasks/${queued}`, { auth: h.apiKey })).json.data.status, 'pending');
  const resumed = await web.post('/console/operator/lanes/resume', { lane: 'test' });
  assert.equal(resumed.status, 303, resumed.text);
  assert.equal(resumed.location, '/console/operator?done=resumed#lanes');
  assert.equal((await waitForTask(h, queued, 15_000)).status, 'completed');
  assert.match((await web.get(resumed.location!)).text, /Lane resumed: its queued items start again\./);

  const notPaused = await web.post('/console/operator/lanes/resume', { lane: 'test' });
  assert.equal(notPaused.status, 409);
  assert.match(
    notPaused.text,
    /<div class="notice error" role="alert">The lane test is not paused: it was resumed already\.<\/div>/,
  );
  const bad = await web.post('/console/operator/lanes/pause', { lane: 'a\u0007b' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Not paused or resumed: the lane name has control characters\./);
  assert.deepEqual(await h.server.services.store.lanePauses.list(), [], 'nothing refused was paused');
});

test('a lane pause needs the operator session, a form of the console and its token', async (t) => {
  const h = await startService(t);
  const account = await consoleSignIn(h);
  const refused = await account.post('/console/operator/lanes/pause', { lane: 'test' });
  assert.equal(refused.status, 403, 'an account session cannot pause lanes');
  const web = await consoleSignIn(h, { operator: true });
  await web.get('/console/operator');
  const foreign = await web.post('/console/operator/lanes/pause', { lane: 'test' }, { origin: 'https://evil.example' });
  assert.equal(foreign.status, 401, 'a form of another site');
  const tokenless = await web.post('/console/operator/lanes/pause', { lane: 'test', _csrf: 'wrong' });
  assert.equal(tokenless.status, 401, 'a form without the session token');
  assert.deepEqual(await h.server.services.store.lanePauses.list(), [], 'nothing was paused');
});
