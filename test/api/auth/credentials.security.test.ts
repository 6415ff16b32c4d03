import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTokenService } from '../../../src/services/tokens.js';
import { assertRejectsMissingCredentials } from '../../helpers/common-auth.js';
import { startService } from '../../helpers/harness.js';
import { startJwksIssuer } from '../../helpers/jwks.js';
import { ManualClock } from '../../helpers/manual-clock.js';

test('every /api-key route refuses missing and unknown credentials', async (t) => {
  const h = await startService(t);
  for (const route of [
    { method: 'POST', path: '/api-key', body: {} },
    { method: 'GET', path: '/api-key' },
    { method: 'GET', path: `/api-key/${h.keyId}` },
    { method: 'DELETE', path: `/api-key/${h.keyId}` },
  ]) {
    await assertRejectsMissingCredentials(t, h, route);
  }
  assert.ok(await h.server.services.apiKeys.resolve(h.apiKey), 'no refused call deleted the key');
});

test('an API key on a keys route is SCOPE_ESCALATION (it asks for the scope keys)', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/api-key', { auth: h.apiKey, body: {} });
  assert.equal(res.status, 403);
  assert.equal(res.json.code, 'SCOPE_ESCALATION');
  assert.deepEqual(res.json.scopes.requested, ['keys']);
  assert.ok(Array.isArray(res.json.scopes.allowed));
});

test('an access token without the keys scope is INSUFFICIENT_SCOPE with required and current', async (t) => {
  const h = await startService(t);
  const { accessToken } = await h.server.services.tokens.issueAccessToken(
    h.accountId,
    ['manage', 'tasks:read'],
    60_000,
  );
  const res = await h.request('GET', '/api-key', { auth: accessToken });
  assert.equal(res.status, 403);
  assert.equal(res.json.code, 'INSUFFICIENT_SCOPE');
  assert.deepEqual(res.json.scopes, { required: ['keys'], current: ['manage', 'tasks:read'] });
});

test('access tokens that are expired, forged or for a deleted account are 401 UNAUTHORIZED', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock });
  const { accessToken } = await h.server.services.tokens.issueAccessToken(h.accountId, ['keys'], 60_000);
  assert.equal((await h.request('GET', '/api-key', { auth: accessToken })).status, 200);

  clock.advance(61_000);
  const expired = await h.request('GET', '/api-key', { auth: accessToken });
  assert.equal(expired.status, 401);
  assert.deepEqual(expired.json, { code: 'UNAUTHORIZED', message: 'the access token has expired' });

  const forger = createTokenService({
    signingKey: new Uint8Array(32).fill(7),
    clock,
    config: h.server.services.config,
  });
  const forged = (await forger.issueAccessToken(h.accountId, ['keys'], 60_000)).accessToken;
  const tampered = `${accessToken.slice(0, -4)}AAAA`;
  for (const token of [forged, tampered, 'not-a-jwt', 'a.b.c']) {
    const res = await h.request('GET', '/api-key', { auth: token });
    assert.equal(res.status, 401, token);
    assert.equal(res.json.code, 'UNAUTHORIZED');
  }
  const ghost = (await h.server.services.tokens.issueAccessToken('acc_deleted', ['keys'], 60_000)).accessToken;
  assert.equal((await h.request('GET', '/api-key', { auth: ghost })).json.code, 'UNAUTHORIZED');
});

test('PATs: malformed or foreign → INVALID_TOKEN, expired → TOKEN_EXPIRED (no message), valid but on a keys route → UNAUTHORIZED', async (t) => {
  const clock = new ManualClock();
  const h = await startService(t, { clock });
  const tokens = h.server.services.tokens;
  const pat = await tokens.issuePat(h.accountId, 'tsk_example');
  assert.match(pat, /^pat_ey/);
  assert.deepEqual(await tokens.verifyPat(pat), { accountId: h.accountId, taskId: 'tsk_example' });

  const foreign = await createTokenService({
    signingKey: new Uint8Array(32).fill(9),
    clock,
    config: h.server.services.config,
  }).issuePat(h.accountId, 'tsk_example');
  for (const bad of [
    'pat_garbage',
    'pat_a.b.c',
    foreign,
    `pat_${(await tokens.issueAccessToken(h.accountId, ['keys'], 60_000)).accessToken}`,
  ]) {
    const res = await h.request('GET', '/api-key', { auth: bad });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, { code: 'INVALID_TOKEN' }, bad);
  }

  const valid = await h.request('GET', '/api-key', { auth: pat });
  assert.equal(valid.status, 401);
  assert.equal(valid.json.code, 'UNAUTHORIZED');

  clock.advance(60 * 60 * 1000 + 1000);
  const expired = await h.request('GET', '/api-key', { auth: pat });
  assert.equal(expired.status, 401);
  assert.deepEqual(expired.json, { code: 'TOKEN_EXPIRED' });
});

test('tokens of a configured external issuer are accepted through its JWKS', async (t) => {
  const { jwksUrl, sign } = await startJwksIssuer(t);
  const h = await startService(t, {
    config: {
      auth: { externalIssuer: { issuer: 'https://id.example', jwksUrl, audience: 'imgtask', accountClaim: 'account' } },
    },
  });

  const byName = await h.request('GET', '/api-key', { auth: await sign({ account: 'acme', scope: 'keys' }) });
  assert.equal(byName.status, 200);
  assert.equal(byName.json.data[0].userId, h.accountId);

  const noScope = await h.request('GET', '/api-key', { auth: await sign({ account: h.accountId, scp: ['manage'] }) });
  assert.equal(noScope.json.code, 'INSUFFICIENT_SCOPE');
  const wrongIssuer = await h.request('GET', '/api-key', {
    auth: await sign({ account: 'acme', scope: 'keys' }, 'https://evil.example'),
  });
  assert.equal(wrongIssuer.json.code, 'UNAUTHORIZED');
  const unknownAccount = await h.request('GET', '/api-key', { auth: await sign({ account: 'nobody', scope: 'keys' }) });
  assert.equal(unknownAccount.json.code, 'UNAUTHORIZED');
});
