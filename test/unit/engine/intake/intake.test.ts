import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/load.js';
import { createConfigSource } from '../../../../src/config/source.js';
import { openIntake } from '../../../../src/engine/intake/intake.js';
import type { IntakeDeps } from '../../../../src/engine/intake/intake-types.js';
import type { Lanes } from '../../../../src/engine/runner/lanes.js';
import type { TaskRunner } from '../../../../src/engine/runner/task-runner.js';
import { sweepWith } from '../../../../src/engine/sweep-timer.js';
import type { AnyTaskType } from '../../../../src/engine/task-registry.js';
import { EventBus } from '../../../../src/services/event-bus.js';
import type { TaskRecord } from '../../../../src/store/records.js';
import type { SharedQueueStore, Store } from '../../../../src/store/store-contract.js';

/**
 * The intake is picked once, from what the store offers; these fakes record what each intake does with a create and a
 * start.
 */
const task = (id: string) => ({ id, type: 'test.echo', request: {} }) as TaskRecord;

function fakes() {
  const did: string[] = [];
  const runner: TaskRunner = {
    enqueue: (t) => void did.push(`runner.enqueue ${t.id}`),
    queueDelayMs: () => 0,
    resume: (pending) => void did.push(`runner.resume ${pending.map((t) => t.id).join(' ')}`),
    run: async () => undefined,
    close: async (graceMs) => void did.push(`runner.close ${graceMs}`),
    progressOf: () => undefined,
    leaseLost: () => undefined,
  };
  const deps: IntakeDeps = {
    runner,
    lanes: { stats: () => ({}) } as unknown as Lanes,
    settlement: { definition: () => ({ lane: () => 'test' }) as unknown as AnyTaskType },
    sweep: async () => {
      did.push('sweep');
      return [];
    },
    streams: { refresh: () => undefined },
    deadlines: { add: () => undefined },
    expireDue: async () => [],
    refreshPauses: async () => undefined,
    events: new EventBus(),
    config: createConfigSource(loadConfig({ env: {} })),
    log: () => undefined,
  };
  const tasks = { listPending: async () => [task('tsk_1'), task('tsk_2')] };
  return { did, deps, tasks };
}

test('a store one process owns gets the local intake: a create queues into this process’s runner', () => {
  const { did, deps, tasks } = fakes();
  const intake = openIntake({ tasks } as unknown as Store, deps);
  intake.enqueue(task('tsk_9'));
  assert.deepEqual(did, ['runner.enqueue tsk_9']);
  assert.equal(intake.workerId(), undefined);
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a store several processes share gets the shared intake: a create notifies the fleet and queues nothing here', async () => {
  const { did, deps, tasks } = fakes();
  const signals = { notify: async (channel: string, payload: string) => void did.push(`notify ${channel} ${payload}`) };
  const intake = openIntake({ tasks, shared: { signals } as unknown as SharedQueueStore } as unknown as Store, deps);
  intake.enqueue(task('tsk_9'));
  await turn();
  assert.deepEqual(did, ['notify imgtask_task_created test'], 'naming the lane it waits in');
});

test('on a shared store, the creates of one batch are announced by one notification, and those made while it is on its way by one more', async () => {
  const { did, deps, tasks } = fakes();
  let sent: () => void = () => {};
  const signals = {
    notify: (channel: string, payload: string) => {
      did.push(`notify ${channel} ${payload}`);
      return new Promise<void>((resolve) => (sent = resolve));
    },
  };
  const intake = openIntake({ tasks, shared: { signals } as unknown as SharedQueueStore } as unknown as Store, deps);
  for (let n = 1; n <= 50; n++) intake.enqueue(task(`tsk_${n}`));
  await turn();
  assert.deepEqual(did, ['notify imgtask_task_created test'], 'one for the fifty, naming their lane once');
  for (let n = 51; n <= 80; n++) intake.enqueue(task(`tsk_${n}`));
  await turn();
  assert.equal(did.length, 1, 'none while the first is on its way');
  sent();
  await turn();
  await turn();
  assert.deepEqual(did, ['notify imgtask_task_created test', 'notify imgtask_task_created test']);
});

test('a working local start records what a crash left out, starts the one dispatcher, resumes the pending tasks and sweeps; close stops the runner, then the dispatcher', async () => {
  const { did, deps, tasks } = fakes();
  const intake = openIntake({ tasks } as unknown as Store, deps);
  await intake.start({
    recover: async () => void did.push('recover'),
    dispatcher: () => ({
      start: () => void did.push('dispatcher.start'),
      close: async (graceMs) => void did.push(`dispatcher.close ${graceMs}`),
    }),
  });
  assert.deepEqual(
    did,
    ['recover', 'dispatcher.start', 'runner.resume tsk_1 tsk_2', 'sweep'],
    'the sweep runs once at start',
  );
  await intake.close(250);
  assert.deepEqual(did.slice(4), ['runner.close 250', 'dispatcher.close 250']);
});

test('a serving-only local start (no work) resumes, sweeps and dispatches nothing', async () => {
  const { did, deps, tasks } = fakes();
  const intake = openIntake({ tasks } as unknown as Store, deps);
  await intake.start(null);
  await intake.close(0);
  assert.deepEqual(did, ['runner.close 0']);
});

test('the sweep runs the install’s housekeeping (erasures, retention) after expiring tasks, also when the expiry failed', async () => {
  const { did, deps, tasks } = fakes();
  let failExpiry = false;
  deps.sweep = async () => {
    did.push('sweep');
    if (failExpiry) throw new Error('store closed');
    return [];
  };
  const logged: string[] = [];
  deps.log = (message) => logged.push(message);
  const intake = openIntake({ tasks } as unknown as Store, deps);
  await intake.start({
    recover: async () => undefined,
    dispatcher: () => ({ start: () => undefined, close: async () => undefined }),
    housekeeping: async () => void did.push('housekeeping'),
  });
  await turn();
  assert.deepEqual(did.slice(-2), ['sweep', 'housekeeping'], 'the sweep at start, then the housekeeping');
  await intake.close(0);

  failExpiry = true;
  const run = sweepWith(deps.sweep, { housekeeping: async () => void did.push('housekeeping after a failure') });
  await assert.rejects(run(), /store closed/);
  assert.equal(did.at(-1), 'housekeeping after a failure');
});
