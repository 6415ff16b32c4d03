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
  assert.equal(config.defaultVideoModel, 'placeholder');
  assert.equal(config.videoModels.placeholder.price.perSecond, '0.002');
  assert.equal(config.video.ffmpegPath, null);
  assert.equal(config.review.price, '0.001');
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
        placeholder: {
          provider: 'placeholder',
          price: { perImage: '0.5', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
        },
        other: {
          provider: 'placeholder',
          price: { perImage: '0.01', perInput: '0.001' },
          capabilities: { maxInputs: 2, supports4k: false, negativePrompt: true },
        },
      },
    }),
  );
  const config = loadConfig({ file, env: {} });
  assert.equal(config.server.port, 9999);
  assert.equal(config.server.host, '127.0.0.1', 'siblings of a merged key keep their defaults');
  assert.equal(config.models.placeholder.price.perImage, '0.5');
  assert.equal(
    config.models.placeholder.price.perImage4k,
    undefined,
    'a replaced model entry does not keep default fields',
  );
  assert.equal(config.models.other.capabilities.maxInputs, 2);
});

test('env settings override the file and flags override env', async () => {
  const config = loadConfig({
    env: { IMGTASK_PORT: '7000', IMGTASK_HOST: '0.0.0.0', IMGTASK_PUBLIC_URL: 'https://img.example' },
    flags: { port: 7001 },
  });
  assert.equal(config.server.port, 7001);
  assert.equal(config.server.host, '0.0.0.0');
  assert.equal(config.publicUrl, 'https://img.example');
});

const VIDEO_CAPS = {
  maxInputs: 0,
  negativePrompt: false,
  maxDurationS: 4,
  maxFps: 24,
  maxSize: '1280x720',
  nativeSize: '1280x720',
};

test('invalid settings are refused with errors that name the key', async (t) => {
  const dir = await tempDir(t);
  const cases: Array<[string, unknown, RegExp]> = [
    ['a port of the wrong type', { server: { port: 'eighty' } }, /server\.port/],
    ['an unknown key', { server: { prot: 1 } }, /server\.prot: unknown key; did you mean `port`\?/],
    [
      'a price that is not a decimal string',
      {
        models: {
          m: {
            provider: 'placeholder',
            price: { perImage: 0.1, perInput: '0' },
            capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
          },
        },
      },
      /models\.m\.price\.perImage/,
    ],
    ['a default model that does not exist', { defaultModel: 'ghost' }, /defaultModel: no model "ghost"/],
    [
      'a model with an unknown provider',
      {
        models: {
          m: {
            provider: 'nope',
            price: { perImage: '1', perInput: '0' },
            capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
          },
        },
      },
      /models\.m: no provider "nope"/,
    ],
    [
      'a default video model that does not exist',
      { defaultVideoModel: 'ghost' },
      /defaultVideoModel: no model "ghost" in videoModels/,
    ],
    [
      'a video model on an image-only provider',
      {
        providers: { sd: { type: 'automatic1111', baseUrl: 'http://127.0.0.1:7860' } },
        videoModels: { v: { provider: 'sd', price: { perSecond: '0.1' }, capabilities: VIDEO_CAPS } },
      },
      /videoModels\.v: provider "sd" \(type automatic1111\) does not make videos/,
    ],
    [
      'a video model with no provider',
      { videoModels: { v: { price: { perSecond: '0.1' }, capabilities: VIDEO_CAPS } } },
      /videoModels\.v: name its provider/,
    ],
    [
      'an image model on a video provider',
      {
        providers: { sora: { type: 'openai-video', baseUrl: 'https://api.example/v1', model: 'sora-2' } },
        models: {
          m: {
            provider: 'sora',
            price: { perImage: '1', perInput: '0' },
            capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
          },
        },
      },
      /models\.m: provider "sora" makes videos, not images/,
    ],
    [
      'a video duration cap past 10 s',
      {
        videoModels: {
          v: {
            provider: 'placeholder',
            price: { perSecond: '0.1' },
            capabilities: { ...VIDEO_CAPS, maxDurationS: 11 },
          },
        },
      },
      /videoModels\.v\.capabilities\.maxDurationS/,
    ],
    [
      'a relative local root',
      { destinations: { local: { allowedRoots: ['tmp'] } } },
      /destinations\.local\.allowedRoots\.0/,
    ],
    [
      'a trusted proxy that is not an address or range',
      { server: { trustedProxies: ['10.0.0.0/8', 'proxy.local'] } },
      /server\.trustedProxies\.1: expected an IP address or a CIDR range/,
    ],
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
