import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('the defaults load and hold every key later parts rely on', () => {
  const config = loadConfig({ env: {} });
  assert.equal(config.publicUrl, null);
  assert.equal(config.fetch.allowPrivateAddresses, false);
  assert.equal(config.defaultModel, 'placeholder');
  assert.equal(config.models.placeholder.price.perImage, '0.001');
  assert.equal(typeof config.sync.timeoutMs, 'number');
  assert.deepEqual(config.destinations.local.allowedRoots, []);
  assert.ok(config.providers.placeholder);
  assert.equal('$comment' in config, false, 'documentation keys are stripped');
});

test('a config file is deep-merged, and model entries are added or replaced whole by id', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'imgtask.json');
  await writeFile(
    file,
    JSON.stringify({
      server: { port: 9999 },
      models: {
        placeholder: { provider: 'placeholder', price: { perImage: '0.5', perInput: '0' }, capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false } },
        other: { provider: 'placeholder', price: { perImage: '0.01', perInput: '0.001' }, capabilities: { maxInputs: 2, supports4k: false, negativePrompt: true } },
      },
    }),
  );
  const config = loadConfig({ file, env: {} });
  assert.equal(config.server.port, 9999);
  assert.equal(config.server.host, '127.0.0.1', 'siblings of a merged key keep their defaults');
  assert.equal(config.models.placeholder.price.perImage, '0.5');
  assert.equal(config.models.placeholder.price.perImage4k, undefined, 'a replaced model entry does not keep default fields');
  assert.equal(config.models.other.capabilities.maxInputs, 2);
});

test('env settings override the file and flags override env', async () => {
  const config = loadConfig({ env: { IMGTASK_PORT: '7000', IMGTASK_HOST: '0.0.0.0', IMGTASK_PUBLIC_URL: 'https://img.example' }, flags: { port: 7001 } });
  assert.equal(config.server.port, 7001);
  assert.equal(config.server.host, '0.0.0.0');
  assert.equal(config.publicUrl, 'https://img.example');
});

test('invalid settings are refused with errors that name the key', async (t) => {
  const dir = await tempDir(t);
  const cases: Array<[string, unknown, RegExp]> = [
    ['a port of the wrong type', { server: { port: 'eighty' } }, /server\.port/],
    ['an unknown key', { server: { prot: 1 } }, /server: Unrecognized key: "prot"/],
    [
      'a price that is not a decimal string',
      { models: { m: { provider: 'placeholder', price: { perImage: 0.1, perInput: '0' }, capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false } } } },
      /models\.m\.price\.perImage/,
    ],
    ['a default model that does not exist', { defaultModel: 'ghost' }, /defaultModel: no model "ghost"/],
    [
      'a model with an unknown provider',
      { models: { m: { provider: 'nope', price: { perImage: '1', perInput: '0' }, capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false } } } },
      /models\.m: no provider "nope"/,
    ],
    ['a relative local root', { destinations: { local: { allowedRoots: ['tmp'] } } }, /destinations\.local\.allowedRoots\.0/],
  ];
  for (const [name, body, pattern] of cases) {
    await t.test(`refuses ${name}`, async () => {
      const file = join(dir, `${name.replace(/\W+/g, '-')}.json`);
      await writeFile(file, JSON.stringify(body));
      assert.throws(
        () => loadConfig({ file, env: {} }),
        (err: unknown) => err instanceof ConfigError && pattern.test(err.message),
      );
    });
  }
  await t.test('refuses a file that is not JSON, naming it', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{ port: 1 }');
    assert.throws(() => loadConfig({ file, env: {} }), /broken\.json is not valid JSON/);
  });
  assert.throws(() => loadConfig({ env: { IMGTASK_PORT: 'x' } }), /IMGTASK_PORT/);
});
