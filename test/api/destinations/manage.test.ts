import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startService } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

const s3Config = {
  bucket: 'images',
  region: 'eu-west-1',
  endpoint: 'https://s3.example',
  accessKeyId: 'AKIAEXAMPLE',
  secretAccessKey: 'very-secret-value-1234',
};

test('POST /destinations answers 201 with the destination, its secrets masked; GET /destinations/{id} reads it', async (t) => {
  const h = await startService(t);
  const res = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name: 'archive', provider: { id: 's3' }, config: s3Config },
  });
  assert.equal(res.status, 201);
  const d = res.json.data;
  assert.deepEqual(Object.keys(d).sort(), ['config', 'createdAt', 'id', 'name', 'provider', 'updatedAt']);
  assert.match(d.id, /^dst_/);
  assert.deepEqual(d.provider, { id: 's3' });
  assert.equal(d.config.secretAccessKey, '****1234', 'never returned in full');
  assert.equal(d.config.accessKeyId, 'AKIAEXAMPLE');
  assert.equal(d.config.keyTemplate, '{date}/{taskId}/{imageId}.{ext}');
  const got = await h.request('GET', `/destinations/${d.id}`, { auth: h.token });
  assert.equal(got.status, 200);
  assert.deepEqual(got.json.data, d);
  assert.deepEqual((await h.request('GET', '/destinations', { auth: h.token })).json.data, [d]);
  assert.equal(
    JSON.stringify((await h.request('GET', '/destinations', { auth: h.token })).json).includes('very-secret-value'),
    false,
  );
});

test('names are unique per account (409 DESTINATION_NAME_TAKEN), the provider cannot change (400 DESTINATIONS_INVALID_PROVIDER)', async (t) => {
  const h = await startService(t);
  const created = (
    await h.request('POST', '/destinations', {
      auth: h.token,
      body: { name: 'archive', provider: { id: 's3' }, config: s3Config },
    })
  ).json.data;
  const again = await h.request('POST', '/destinations', {
    auth: h.token,
    body: { name: 'archive', provider: { id: 's3' }, config: s3Config },
  });
  assert.equal(again.status, 409);
  assert.equal(again.json.code, 'DESTINATION_NAME_TAKEN');
  const other = await h.server.services.accounts.create('other');
  const otherToken = (await h.server.services.tokens.issueAccessToken(other.id, ['manage'], 60_000)).accessToken;
  assert.equal(
    (
      await h.request('POST', '/destinations', {
        auth: otherToken,
        body: { name: 'archive', provider: { id: 's3' }, config: s3Config },
      })
    ).status,
    201,
    'another account may use the name',
  );

  const changed = await h.request('PATCH', `/destinations/${created.id}`, {
    auth: h.token,
    body: { provider: { id: 'http' } },
  });
  assert.equal(changed.status, 400);
  assert.equal(changed.json.code, 'DESTINATIONS_INVALID_PROVIDER');

  const second = (
    await h.request('POST', '/destinations', {
      auth: h.token,
      body: { name: 'second', provider: { id: 's3' }, config: s3Config },
    })
  ).json.data;
  assert.equal(
    (await h.request('PATCH', `/destinations/${second.id}`, { auth: h.token, body: { name: 'archive' } })).json.code,
    'DESTINATION_NAME_TAKEN',
  );

  // Sending the masked secret back keeps the stored one; a new value replaces it.
  const renamed = await h.request('PATCH', `/destinations/${created.id}`, {
    auth: h.token,
    body: { name: 'vault', config: { ...created.config, region: 'us-east-2' } },
  });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.json.data.name, 'vault');
  assert.equal(renamed.json.data.config.region, 'us-east-2');
  assert.equal(renamed.json.data.config.secretAccessKey, '****1234');
  const rekeyed = await h.request('PATCH', `/destinations/${created.id}`, {
    auth: h.token,
    body: { config: { ...created.config, secretAccessKey: 'another-secret-9876' } },
  });
  assert.equal(rekeyed.json.data.config.secretAccessKey, '****9876');
});

test('an unknown or foreign destination is 404 DESTINATION_NOT_FOUND on every route', async (t) => {
  const h = await startService(t);
  const other = await h.server.services.accounts.create('other');
  const theirs = await h.server.services.destinations.create(other.id, {
    name: 'x',
    provider: { id: 's3' },
    config: s3Config,
  });
  for (const id of ['dst_nope', theirs.id]) {
    for (const [method, path, body] of [
      ['GET', `/destinations/${id}`],
      ['PATCH', `/destinations/${id}`, { name: 'y' }],
      ['DELETE', `/destinations/${id}`],
      ['POST', `/destinations/${id}/test`],
    ] as const) {
      const res = await h.request(method, path, { auth: h.token, body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.json.code, 'DESTINATION_NOT_FOUND');
    }
  }
});

test('bad bodies are schema rejections in the { success: false, errors } shape, pointing into config', async (t) => {
  const h = await startService(t);
  for (const [body, path] of [
    [{ provider: { id: 's3' }, config: s3Config }, ['name']],
    [{ name: 'n'.repeat(65), provider: { id: 's3' }, config: s3Config }, ['name']],
    [{ name: 'a', provider: { id: 'ftp' }, config: {} }, ['provider', 'id']],
    [{ name: 'a', provider: { id: 's3' }, config: { ...s3Config, bucket: undefined } }, ['config', 'bucket']],
    [
      { name: 'a', provider: { id: 'http' }, config: { urlTemplate: 'https://store.example/upload' } },
      ['config', 'urlTemplate'],
    ],
    [{ name: 'a', provider: { id: 'local' }, config: { path: 'relative/dir' } }, ['config', 'path']],
    [
      { name: 'a', provider: { id: 's3' }, config: { ...s3Config, keyTemplate: '{taskId}.png' } },
      ['config', 'keyTemplate'],
    ],
  ] as const) {
    const res = await h.request('POST', '/destinations', { auth: h.token, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.deepEqual(Object.keys(res.json), ['success', 'errors']);
    assert.deepEqual(res.json.errors[0].path, path, JSON.stringify(body));
  }
});

test('a local destination must lie under an allowed root', async (t) => {
  const root = await tempDir(t);
  const h = await startService(t, { config: { destinations: { local: { allowedRoots: [root] } } } });
  assert.equal(
    (
      await h.request('POST', '/destinations', {
        auth: h.token,
        body: { name: 'in', provider: { id: 'local' }, config: { path: join(root, 'images') } },
      })
    ).status,
    201,
  );
  for (const path of ['/etc', `${root}/../elsewhere`, `${root}-sibling`]) {
    const res = await h.request('POST', '/destinations', {
      auth: h.token,
      body: { name: 'out', provider: { id: 'local' }, config: { path } },
    });
    assert.equal(res.status, 400, path);
    assert.equal(res.json.code, 'VALIDATION_ERROR');
    assert.match(res.json.message, /allowedRoots/);
  }
});

test('a secret that cannot be decrypted is 500 UNKNOWN_ERROR', async (t) => {
  const h = await startService(t);
  const created = (
    await h.request('POST', '/destinations', {
      auth: h.token,
      body: { name: 'archive', provider: { id: 's3' }, config: s3Config },
    })
  ).json.data;
  await h.server.close();
  await mkdir(join(h.dataDir, 'keys'), { recursive: true });
  await writeFile(join(h.dataDir, 'keys', 'secrets.key'), `${Buffer.alloc(32, 9).toString('base64url')}\n`); // a different key
  const { startServer } = await import('../../../src/app/server.js');
  const { deepMerge, loadConfig } = await import('../../../src/config/load.js');
  const { closeBeforeRemoval } = await import('../../helpers/temp-dir.js');
  const again = await startServer({
    dataDir: h.dataDir,
    config: loadConfig({ env: {}, overrides: deepMerge({ server: { port: 0 } }, h.storeConfig) }),
  });
  closeBeforeRemoval(h.dataDir, () => again.close());
  const token = (await again.services.tokens.issueAccessToken(h.accountId, ['manage'], 60_000)).accessToken;
  const res = await fetch(`${again.url}/destinations/${created.id}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 500);
  assert.equal(((await res.json()) as { code: string }).code, 'UNKNOWN_ERROR');
});

test('destination routes take an access token with manage', async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/destinations', { auth: h.apiKey });
  assert.equal(res.status, 403);
  assert.equal(res.json.code, 'SCOPE_ESCALATION');
  assert.equal((await h.request('GET', '/destinations', { auth: null })).json.code, 'UNAUTHORIZED');
});
