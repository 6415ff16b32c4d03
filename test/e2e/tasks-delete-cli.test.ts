import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startService, waitForTask } from '../helpers/harness.js';
import { hasScript, runInTerminal } from '../helpers/terminal.js';

test('imgtask tasks delete ID deletes its outputs and text, says what is kept, and answers the same again; tasks show says it was deleted', async (t) => {
  const h = await startService(t);
  const created = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a secret harbour', metadata: { order: 'o-40' } },
  });
  const task = await waitForTask(h, created.json.data.taskId);
  const imageUrl = task.result.images[0].service_url;
  const env = { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey };

  const deleted = await runCli(['tasks', 'delete', task.id, '--json'], env);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal(deleted.json.dataRemoved, true);
  assert.equal(deleted.json.cost, '0.001', 'the charge is kept');
  assert.equal((await fetch(imageUrl)).status, 404);

  const again = await runCli(['tasks', 'delete', task.id, '--json'], env);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.json.id, task.id);
  assert.equal(again.json.dataRemoved, true);
  assert.deepEqual(again.json.request, {});
  assert.equal(again.json.result, null);

  assert.deepEqual(again.json, deleted.json, 'again: the same task');

  if (hasScript) {
    // On a terminal, in words.
    const said = await runInTerminal(['tasks', 'delete', task.id], { ...env, NO_COLOR: '1' });
    assert.equal(said.code, 0, said.screen);
    assert.match(
      said.screen,
      new RegExp(
        `${task.id} deleted: its outputs, prompt, metadata and result are gone \\(completed, charged 0\\.001 USD, kept for accounting\\)`,
      ),
    );
    const shown = await runInTerminal(['tasks', 'show', task.id], { ...env, NO_COLOR: '1' });
    assert.match(
      shown.screen,
      new RegExp(`data removed ${deleted.json.dataRemovedAt}: its outputs, prompt and result are gone`),
    );
    assert.doesNotMatch(shown.screen, /secret harbour|o-40/);
  } else t.diagnostic('script (util-linux) is not installed: terminal checks skipped');

  const unknown = await runCli(['tasks', 'delete', 'tsk_unknown', '--json'], env);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.json.error.code, 'TASK_NOT_FOUND');
  assert.equal(unknown.json.error.status, 404);
});
