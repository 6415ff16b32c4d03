import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleSignIn } from '../../helpers/console.js';
import { startService } from '../../helpers/harness.js';

/**
 * workflow:raw is opt-in everywhere a credential gets scopes by default: the console's new-key
 * form leaves it unticked, and an access token issued without a scopes list lacks it (so a key
 * it creates cannot hold it), while one that names it may grant it by name.
 */
test('the console’s key form leaves workflow:raw unticked and the other API-key scopes ticked', async (t) => {
  const h = await startService(t);
  const c = await consoleSignIn(h);
  const page = await c.get('/console/keys');
  assert.equal(page.status, 200);
  assert.match(page.text, /id="scope-workflow:raw" name="scopes" value="workflow:raw"(?! checked)/);
  assert.match(page.text, /id="scope-image:generate" name="scopes" value="image:generate" checked/);
});

test('an access token issued without a scopes list does not hold workflow:raw, nor may it grant it; one that names it may', async (t) => {
  const h = await startService(t);
  const { tokens } = h.server.services;
  const plain = (await tokens.issueAccessToken(h.accountId, undefined, 60_000)).accessToken;
  const refused = await h.request('POST', '/api-key', { auth: plain, body: { scopes: ['workflow:raw'] } });
  assert.equal(refused.status, 403, refused.text);
  assert.equal(refused.json.code, 'SCOPE_ESCALATION');
  const made = await h.request('POST', '/api-key', { auth: plain, body: {} });
  assert.ok(!made.json.data.apiKey.scopes.includes('workflow:raw'));
  const granted = await h.request('POST', '/api-key', {
    auth: h.token,
    body: { scopes: ['image:generate', 'workflow:raw'] },
  });
  assert.equal(granted.status, 201, granted.text);
  assert.deepEqual(granted.json.data.apiKey.scopes, ['image:generate', 'workflow:raw']);
});
