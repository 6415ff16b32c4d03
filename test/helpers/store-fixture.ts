import { hash, randomBytes } from 'node:crypto';
import { PERIODS } from '../../src/domain/periods.js';
import { seal } from '../../src/services/secrets.js';
import type { DeliveryRecord, EventRecord, ItemRecord, TaskRecord } from '../../src/store/records.js';
import type { Store } from '../../src/store/store-contract.js';

/**
 * A store holding one of everything `imgtask store export|import` must carry: two accounts with
 * credits, keys (one revoked, one with a spending limit), tasks completed, failed, pending with
 * items done (one with `prepared`), settled without an event and with no event wanted, webhooks
 * with events and deliveries pending, delivered, failed and redelivered, a destination, a secret.
 * Pending tasks are `test.echo` tasks the test server fixture can resume.
 */
export interface StoreFixture {
  /** Raw API keys: `live` (alice, spending limit), `revoked` (alice), `bob`. */
  raw: { live: string; revoked: string; bob: string };
  keyIds: string[];
  taskIds: {
    completed: string;
    failed: string;
    pendingPrepared: string;
    pendingFresh: string;
    partial: string;
    noEvent: string;
    tokenTask: string;
  };
  eventIds: string[];
  deliveryIds: string[];
  accountIds: { alice: string; bob: string };
}

const USD = 1_000_000;
let serial = 0;
/** Ids that sort in creation order, as the services make them. */
const idOf = (prefix: string, millis: number) =>
  `${prefix}_${millis.toString(36).padStart(9, '0')}${(serial++).toString(36).padStart(3, '0')}${randomBytes(5).toString('hex')}`;

export async function fillStore(
  store: Store,
  secretsKey: Uint8Array,
  base = Date.now() - 3_600_000,
): Promise<StoreFixture> {
  let tick = base;
  const at = () => {
    tick += 1000;
    return new Date(tick).toISOString();
  };
  const id = (prefix: string) => idOf(prefix, tick + 1000);

  const alice = await store.accounts.create({
    id: id('acc'),
    name: 'alice',
    balance: 0,
    createdAt: at(),
    updatedAt: at(),
  });
  const bob = await store.accounts.create({
    id: id('acc'),
    name: 'bob "the" builder ✓',
    balance: 0,
    createdAt: at(),
    updatedAt: at(),
  });
  await store.accounts.credit({ id: id('cr'), accountId: alice.id, amount: 10 * USD, note: 'first', createdAt: at() });
  await store.accounts.credit({ id: id('cr'), accountId: bob.id, amount: 1 * USD, createdAt: at() });
  await store.accounts.credit({ id: id('cr'), accountId: alice.id, amount: 2 * USD, createdAt: at() });

  const raw = {
    live: `mak_${randomBytes(20).toString('hex')}`,
    revoked: `mak_${randomBytes(20).toString('hex')}`,
    bob: `mak_${randomBytes(20).toString('hex')}`,
  };
  const keyOf = (accountId: string, rawKey: string, extra: object) => ({
    id: id('key'),
    accountId,
    hash: hash('sha256', rawKey, 'hex'),
    preview: `${rawKey.slice(0, 8)}…`,
    scopes: ['image:generate', 'tasks:read', 'manage'],
    spendingLimitPeriod: 'day' as const,
    createdAt: at(),
    ...extra,
  });
  const live = await store.apiKeys.create(keyOf(alice.id, raw.live, { name: 'ci', spendingLimit: 5 * USD }), {
    maxLive: 100,
  });
  const revoked = await store.apiKeys.create(keyOf(alice.id, raw.revoked, {}), { maxLive: 100 });
  await store.apiKeys.revoke(revoked.id, at());
  const bobKey = await store.apiKeys.create(
    keyOf(bob.id, raw.bob, { spendingLimitPeriod: 'month', spendingLimit: 2 * USD }),
    { maxLive: 100 },
  );

  const request = (items: number, extra: object = {}) => ({
    items,
    price: '0.5',
    delayMs: 0,
    failItems: [],
    failCode: 'RESTRICTED_CONTENT',
    flakyAttempts: 0,
    ...extra,
  });
  const pendingItems = (n: number): ItemRecord[] => Array.from({ length: n }, () => ({ status: 'pending' }));
  const newTask = async (
    accountId: string,
    apiKeyId: string | null,
    items: number,
    extra: Partial<TaskRecord> = {},
    req: object = {},
  ) => {
    const createdAt = at();
    const task: TaskRecord = {
      id: id('tsk'),
      type: 'test.echo',
      status: 'pending',
      accountId,
      apiKeyId,
      request: request(items, req),
      items: pendingItems(items),
      estimate: items * 0.5 * USD,
      cost: 0,
      result: null,
      createdAt,
      updatedAt: createdAt,
      ...extra,
    };
    return store.tasks.create(task, {});
  };
  const success = (index: number): ItemRecord => ({
    status: 'success',
    cost: 0.5 * USD,
    result: { index, attempt: 1, text: 'ünïcødé \u0000 nul' },
    attempts: 1,
  });
  const failure: ItemRecord = {
    status: 'failed',
    error: { code: 'RESTRICTED_CONTENT', message: 'refused' },
    attempts: 1,
  };

  // Completed: three items, the last settling it.
  const completed = await newTask(alice.id, live.id, 3, {}, { metadata: { project: 'apollo', n: 7 } });
  await store.tasks.savePrepared(completed.id, { runtime: { prepared: true } }, at());
  await store.tasks.recordItem(completed.id, 0, success(0), at());
  await store.tasks.recordItem(completed.id, 1, success(1), at());
  await store.tasks.settle({
    id: completed.id,
    status: 'completed',
    result: { items: [0, 1, 2] },
    cost: 1.5 * USD,
    at: at(),
    lastItem: { index: 2, item: success(2) },
  });
  // Failed: nothing charged.
  const failed = await newTask(alice.id, live.id, 1, { type: 'image.generate' });
  await store.tasks.settle({
    id: failed.id,
    status: 'failed',
    result: null,
    errors: [{ code: 'RESTRICTED_CONTENT' }],
    cost: 0,
    at: at(),
    lastItem: { index: 0, item: failure },
  });
  // Pending, one item of three done, with what prepare worked out.
  const pendingPrepared = await newTask(alice.id, live.id, 3, {}, { metadata: { project: 'gemini' } });
  await store.tasks.savePrepared(pendingPrepared.id, { runtime: { prepared: true }, size: [512, 512] }, at());
  await store.tasks.recordItem(pendingPrepared.id, 0, success(0), at());
  // Pending, nothing done.
  const pendingFresh = await newTask(alice.id, live.id, 2);
  // Bob: completed with a failed item (charged one), and no event wanted.
  const partial = await newTask(bob.id, bobKey.id, 2);
  await store.tasks.recordItem(partial.id, 0, success(0), at());
  await store.tasks.settle({
    id: partial.id,
    status: 'completed',
    result: { items: [0] },
    cost: 0.5 * USD,
    at: at(),
    lastItem: { index: 1, item: failure },
  });
  const noEvent = partial;
  await store.webhooks.markNoEvent(noEvent.id);
  // Bob through an access token (no key), failed, its event never recorded (settled without event).
  const tokenTask = await newTask(bob.id, null, 1);
  await store.tasks.settle({
    id: tokenTask.id,
    status: 'failed',
    result: null,
    errors: [{ code: 'TIMEOUT', message: 'slow' }],
    cost: 0,
    at: at(),
    lastItem: { index: 0, item: failure },
  });

  await store.secrets.put({
    id: 'openai',
    sealed: seal(secretsKey, 'openai', 'sk-test-123'),
    createdAt: at(),
    updatedAt: at(),
  });
  await store.secrets.put({ id: 'zeta', sealed: seal(secretsKey, 'zeta', 'z'), createdAt: at(), updatedAt: at() });
  const hookId = id('whk');
  const webhook = await store.webhooks.put({
    id: hookId,
    accountId: alice.id,
    url: 'http://127.0.0.1:9/hook',
    enabled: true,
    events: null,
    apiKeyIds: [live.id],
    sealedSecret: seal(secretsKey, hookId, `whsec_${randomBytes(16).toString('hex')}`),
    createdAt: at(),
    updatedAt: at(),
    failingSince: at(),
  });
  const destId = id('dst');
  await store.destinations.put({
    id: destId,
    accountId: alice.id,
    name: 'archive',
    provider: { id: 's3' },
    config: { bucket: 'b', region: 'us-east-1', prefix: 'p/' },
    sealedSecrets: seal(secretsKey, destId, JSON.stringify({ accessKeyId: 'a', secretAccessKey: 's' })),
    createdAt: at(),
    updatedAt: at(),
  });

  const event = (taskId: string, accountId: string): EventRecord => ({
    id: id('evt'),
    type: 'task.completed',
    accountId,
    taskId,
    createdAt: at(),
    payload: { type: 'task.completed', data: { taskId } },
  });
  const delivery = (eventId: string, accountId: string, webhookId: string | null, url: string): DeliveryRecord => {
    const createdAt = at();
    return {
      id: id('dlv'),
      eventId,
      accountId,
      webhookId,
      url,
      status: 'pending',
      attempts: [],
      nextAttemptAt: createdAt,
      createdAt,
      updatedAt: createdAt,
    };
  };
  const e1 = event(completed.id, alice.id);
  const d = [
    delivery(e1.id, alice.id, webhook.id, webhook.url),
    delivery(e1.id, alice.id, null, 'http://127.0.0.1:9/custom'),
  ];
  await store.webhooks.recordEvent(e1, d);
  const e2 = event(failed.id, alice.id);
  const d2 = [delivery(e2.id, alice.id, webhook.id, webhook.url), delivery(e2.id, alice.id, webhook.id, webhook.url)];
  await store.webhooks.recordEvent(e2, d2);
  // d[0] delivered; d[1] failing, still pending (retry later); d2[0] failed for good; d2[1] failed then redelivered.
  const later = new Date(tick + 3_600_000).toISOString();
  await store.webhooks.recordAttempt(d[0].id, { at: at(), status: 200, latencyMs: 12 }, 'delivered', null);
  await store.webhooks.recordAttempt(
    d[1].id,
    { at: at(), status: null, latencyMs: 5, error: 'ECONNREFUSED' },
    'pending',
    later,
  );
  await store.webhooks.recordAttempt(d2[0].id, { at: at(), status: 500, latencyMs: 40 }, 'failed', null);
  await store.webhooks.recordAttempt(d2[1].id, { at: at(), status: 410, latencyMs: 3 }, 'failed', null);
  await store.webhooks.redeliver(d2[1].id, later);

  return {
    raw,
    keyIds: [live.id, revoked.id, bobKey.id],
    taskIds: {
      completed: completed.id,
      failed: failed.id,
      pendingPrepared: pendingPrepared.id,
      pendingFresh: pendingFresh.id,
      partial: partial.id,
      noEvent: noEvent.id,
      tokenTask: tokenTask.id,
    },
    eventIds: [e1.id, e2.id],
    deliveryIds: [...d, ...d2].map((x) => x.id),
    accountIds: { alice: alice.id, bob: bob.id },
  };
}

/** Everything the Store API answers about the fixture's records, for deepEqual between two stores. */
export async function storeView(store: Store, fixture: StoreFixture): Promise<Record<string, unknown>> {
  const accounts = await store.accounts.list();
  const perAccount: Record<string, unknown> = {};
  for (const account of accounts) {
    perAccount[account.id] = {
      byName: await store.accounts.getByName(account.name),
      credits: await store.accounts.credits(account.id),
      liveKeys: await store.apiKeys.listLive(account.id),
      reserved: await store.tasks.reserved(account.id),
      tasks: await store.tasks.list(account.id, { limit: 100 }),
      tasksPage: await store.tasks.list(account.id, { limit: 2 }),
      metadata: await store.tasks.list(account.id, { limit: 100, metadata: { project: 'gemini' } }),
      webhooks: await store.webhooks.listByAccount(account.id),
      destinations: await store.destinations.listByAccount(account.id),
      archive: await store.destinations.getByName(account.id, 'archive'),
    };
  }
  const tasks = [...(await store.tasks.all())];
  const keySpend: Record<string, number> = {};
  for (const keyId of fixture.keyIds)
    for (const period of PERIODS)
      keySpend[`${keyId} ${period}`] = await store.tasks.keySpend(keyId, period, Date.now());
  const webhooks = await store.webhooks.listAll();
  return {
    accounts,
    perAccount,
    keys: await Promise.all(fixture.keyIds.map((keyId) => store.apiKeys.get(keyId))),
    liveByHash: await Promise.all(
      Object.values(fixture.raw).map((raw) => store.apiKeys.getLiveByHash(hash('sha256', raw, 'hex'))),
    ),
    keySpend,
    tasks,
    each: await Promise.all(tasks.map((task) => store.tasks.get(task.id))),
    pending: await store.tasks.listPending(),
    countPending: await store.tasks.countPending(),
    countsByStatus: await store.tasks.countsByStatus(),
    // Each backend answers these in an order of its own: compared as a set.
    countsByTypeStatus: (await store.tasks.countsByTypeStatus()).sort((a, b) =>
      `${a.type} ${a.status}`.localeCompare(`${b.type} ${b.status}`),
    ),
    recent: await store.tasks.recent(100),
    secrets: await store.secrets.list(),
    openai: await store.secrets.get('openai'),
    webhooks,
    deliveriesOf: await Promise.all(webhooks.map((webhook) => store.webhooks.deliveriesOf(webhook.id, 100))),
    deliveries: await Promise.all(fixture.deliveryIds.map((deliveryId) => store.webhooks.getDelivery(deliveryId))),
    pendingDeliveries: await store.webhooks.pendingDeliveries(),
    nextDeliveries: await store.webhooks.nextDeliveries(10, new Set()),
    deliveryCounts: await store.webhooks.deliveryCounts(),
    events: await Promise.all(fixture.eventIds.map((eventId) => store.webhooks.getEvent(eventId))),
    settledWithoutEvent: await store.webhooks.settledWithoutEvent(),
  };
}
