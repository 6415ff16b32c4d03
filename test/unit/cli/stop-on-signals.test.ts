import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stoppedMessage } from '../../../src/cli/stop-on-signals.js';

test('the last line of a stop says when it stopped, how long after the signal, and what it left pending', () => {
  const at = new Date(2026, 0, 2, 9, 5, 7);
  assert.equal(
    stoppedMessage('SIGINT', 1_234, at, { tasks: 2, items: 5, fleet: false }),
    'stopped at 09:05:07, 1.2 s after SIGINT; 5 items of 2 tasks left pending: they run at the next start',
  );
  assert.equal(
    stoppedMessage('SIGTERM', 40, at, { tasks: 1, items: 1, fleet: false }),
    'stopped at 09:05:07, 0.0 s after SIGTERM; 1 item of 1 task left pending: it runs at the next start',
  );
  assert.equal(
    stoppedMessage('SIGINT', 10_000, at, { tasks: 0, items: 0, fleet: false }),
    'stopped at 09:05:07, 10.0 s after SIGINT; no task left pending',
  );
  assert.equal(
    stoppedMessage('SIGTERM', 500, at, { tasks: 3, items: 3, fleet: true }),
    'stopped at 09:05:07, 0.5 s after SIGTERM; 3 items of 3 tasks left pending: the working processes take them, or the next start',
  );
  assert.equal(
    stoppedMessage('SIGINT', 500, at, null),
    'stopped at 09:05:07, 0.5 s after SIGINT',
    'serve --no-work, or a store that could not be read',
  );
});
