import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, send } from '../../helpers/harness.js';
import { startLoggedServer } from '../../helpers/logged-server.js';

test('a write refused for lack of space is an access line at warn, without a stack: a condition answered on purpose, not a fault', async (t) => {
  const { server, lines } = await startLoggedServer(t, {
    extendApi: (app) => {
      app.post('/test/full', () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      });
    },
  });
  const res = await send(server.url, 'POST', '/test/full');
  assert.equal(res.status, 507);
  await eventually(() => lines().some((l) => l.event === 'http.request'));
  const [line] = lines().filter((l) => l.event === 'http.request');
  assert.equal(`${line.level} ${line.status}`, 'warn 507');
  assert.equal(line.err, undefined);
});
