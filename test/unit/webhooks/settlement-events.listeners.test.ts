import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import { createConfigSource } from '../../../src/config/source.js';
import { EventBus } from '../../../src/services/event-bus.js';
import { systemClock } from '../../../src/services/ports.js';
import type { TaskRecord } from '../../../src/store/records.js';
import type { Store } from '../../../src/store/store-contract.js';
import { createBillingAlerts } from '../../../src/webhooks/billing-alerts.js';
import { createOutbox } from '../../../src/webhooks/outbox.js';

/**
 * Each webhook listener subscribes itself to the settlements it needs when it is made, and
 * `close` unsubscribes it: nobody else wires them to the event bus.
 */
const config = createConfigSource(loadConfig({ env: {}, overrides: { billing: { alerts: { thresholds: [50] } } } }));
const AT = '2026-11-22T08:00:00.000Z';
const settled = (id: string): TaskRecord => ({
  id,
  type: 'test.echo',
  status: 'completed',
  accountId: 'acc_1',
  apiKeyId: null,
  request: {},
  items: [{ status: 'success', cost: 10 }],
  estimate: 10,
  cost: 10,
  result: null,
  createdAt: AT,
  updatedAt: AT,
});

/** A store whose only part these listeners reach first: the account's webhooks (none), each lookup noted. */
function storeNoting(looked: string[], marked?: (taskId: string) => void): Store {
  const webhooks = {
    listByAccount: async (accountId: string) => {
      looked.push(accountId);
      return [];
    },
    markNoEvent: async (taskId: string) => marked?.(taskId),
  };
  return { webhooks } as unknown as Store;
}

test('the outbox records each settlement it hears by itself, and hears none once closed', async () => {
  const events = new EventBus();
  const looked: string[] = [];
  let marked: (taskId: string) => void = () => {};
  const recorded = new Promise<string>((resolve) => (marked = resolve));
  const outbox = createOutbox({
    store: storeNoting(looked, marked),
    secretsKey: new Uint8Array(32),
    clock: systemClock,
    config,
    events,
    log: () => {},
  });

  events.emit('task:settled', { kind: 'task.test.echo.completed', task: settled('tsk_1') });
  assert.equal(await recorded, 'tsk_1', 'nobody to tell: the task gets its no-event mark');

  outbox.close();
  events.emit('task:settled', { kind: 'task.test.echo.completed', task: settled('tsk_2') });
  assert.deepEqual(looked, ['acc_1'], 'the settlement after close was not looked at');
});

test('budget alerts check each charging settlement they hear by themselves, and none once closed', async () => {
  const events = new EventBus();
  const looked: string[] = [];
  const alerts = createBillingAlerts({ store: storeNoting(looked), clock: systemClock, config, events, log: () => {} });

  events.emit('task:settled', { kind: 'task.test.echo.completed', task: settled('tsk_1') });
  await alerts.idle();
  assert.deepEqual(looked, ['acc_1']);

  alerts.close();
  events.emit('task:settled', { kind: 'task.test.echo.completed', task: settled('tsk_2') });
  await alerts.idle();
  assert.deepEqual(looked, ['acc_1'], 'the settlement after close was not checked');
});
