// `imgtask webhooks deliveries ID` in text mode: each delivery's row, then why its attempts failed.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { eventually, startService } from '../helpers/harness.js';
import { startReceiver } from '../helpers/receiver.js';
import { tempDir } from '../helpers/temp-dir.js';

test("webhooks deliveries prints each failed attempt's error under its delivery, attempts failing alike on one line", {
  timeout: 60_000,
}, async (t) => {
  const receiver = await startReceiver(t);
  const h = await startService(t, {
    config: { webhooks: { allowPrivateAddresses: true, retryScheduleMs: [0, 50], endpointCooldownMaxMs: 1000 } },
  });
  const created = await h.request('POST', '/webhook', { auth: h.token, body: { url: receiver.url() } });
  assert.equal(created.status, 201, created.text);
  const { id } = created.json.data;
  // Private addresses turned off after the webhook was made: every attempt is refused, with the reason.
  const { services } = h.server;
  const current = services.config.current();
  await services.reload({ ...current, webhooks: { ...current.webhooks, allowPrivateAddresses: false } });
  assert.equal((await h.request('POST', `/webhook/${id}/test`, { auth: h.token })).status, 202);
  await eventually(
    async () =>
      (await h.request('GET', `/webhook/${id}/deliveries`, { auth: h.token })).json.data[0]?.status === 'failed',
    15_000,
  );

  const config = join(await tempDir(t), 'store.json');
  await writeFile(config, JSON.stringify(h.storeConfig));
  const listed = await runCli(['--data', h.dataDir, '--config', config, 'webhooks', 'deliveries', id]);
  assert.equal(listed.code, 0, listed.stderr);
  const [header, row, reason, ...rest] = listed.stdout.trimEnd().split('\n');
  assert.match(header, /^DELIVERY\s+EVENT\s+STATUS\s+ATTEMPTS \(code\/ms\)\s+NEXT$/);
  assert.match(row, /^dlv_\S+\s+webhook\.test\s+failed\s+none\/\d+ none\/\d+\s+-$/);
  assert.equal(
    reason,
    '  attempts 1-2: 127.0.0.1 is an address user URLs may not reach (unless webhooks.allowPrivateAddresses is true)',
  );
  assert.deepEqual(rest, []);
  assert.equal(receiver.received.length, 0);
});
