import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../helpers/console.js';
import { eventually, type Harness, startService, waitForTask } from '../helpers/harness.js';

async function settledEcho(h: Harness, body: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request('POST', '/test/tasks', { auth: h.apiKey, body });
  assert.equal(res.status, 201, res.text);
  await waitForTask(h, res.json.data.taskId);
  return res.json.data.taskId;
}

/** The inspector's note on a task whose event was stored for no delivery, once the event is recorded. */
async function note(h: Harness, taskId: string): Promise<string> {
  const c = await consoleSignIn(h);
  let text = '';
  await eventually(async () => {
    text = (await c.get(`/console/tasks/${taskId}`)).text;
    return !text.includes('Its event is being recorded');
  });
  return /<p class="muted">((?:No webhook|This task was created)[\s\S]*?)<\/p>/.exec(text)?.[1] ?? text;
}

test('the inspector does not say that no event was sent when only live listeners heard it: it says nothing was stored, and what listeners get', async (t) => {
  const h = await startService(t);
  // No webhook: a live listener (imgtask webhooks listen) would have had this task's event.
  const heard = await note(h, await settledEcho(h));
  assert.doesNotMatch(heard, /no event was sent/);
  assert.match(
    heard,
    /^No webhook endpoint was to receive this task(&#39;|')s event, so none was stored for delivery\./,
  );
  assert.match(
    heard,
    /Live listeners \(<code>imgtask webhooks listen<\/code>, <code>GET \/webhook\/events<\/code>\) connected when it settled got it; they are not recorded here\./,
  );
  assert.match(heard, /<a href="\/console\/webhooks">Webhooks<\/a>/);

  // Opted out: no listener had it either.
  const alone = await note(h, await settledEcho(h, { webhook: { dashboard: false } }));
  assert.match(
    alone,
    /^This task was created with <code>webhook\.dashboard: false<\/code> and no endpoint of its own: its event went to no webhook and no live listener/,
  );
});
