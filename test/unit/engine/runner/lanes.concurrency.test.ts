import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/load.js';
import { createConfigSource } from '../../../../src/config/source.js';
import { providersLane } from '../../../../src/domain/provider-lanes.js';
import { Lanes } from '../../../../src/engine/runner/lanes.js';

/**
 * A model's lane is its providers together: one provider keeps its own name and concurrency;
 * several share one lane (whatever their order in the model) that runs as many items at once
 * as their concurrency summed; `work.lanes` still sets any lane; a reload applies at once.
 */
const providers = {
  'gpu-1': { type: 'placeholder', concurrency: 3 },
  'gpu-2': { type: 'placeholder', concurrency: 5 },
};

test('a lane of several providers runs their concurrency summed; one provider keeps its own', async () => {
  const config = createConfigSource(loadConfig({ env: {}, overrides: { providers } }));
  const lanes = new Lanes(config);
  assert.equal(providersLane(['gpu-2', 'gpu-1']), 'gpu-1+gpu-2');
  assert.equal(providersLane(['gpu-1', 'gpu-2', 'gpu-1']), 'gpu-1+gpu-2', 'the same servers in any order: one lane');
  assert.equal(providersLane(['gpu-1']), 'gpu-1');
  assert.equal(lanes.get('gpu-1+gpu-2').concurrency, 8);
  assert.equal(lanes.get('gpu-1').concurrency, 3);
  assert.equal(lanes.get('video:gpu-1+gpu-2').concurrency, 8, 'a video lane of the same servers: the same sum');
  assert.equal(lanes.get('image.rate').concurrency, 2, 'a lane that is no provider: work.defaultConcurrency');
  assert.equal(lanes.get('gpu-1+nowhere').concurrency, 2, 'a name that is no provider: the default');

  await config.set(
    loadConfig({
      env: {},
      overrides: {
        providers: { ...providers, 'gpu-2': { type: 'placeholder', concurrency: 1 } },
        work: { lanes: { 'gpu-1': 7 } },
      },
    }),
  );
  assert.equal(lanes.get('gpu-1+gpu-2').concurrency, 4, 'a reload applies to the summed lane');
  assert.equal(lanes.get('gpu-1').concurrency, 7, 'work.lanes wins');
  lanes.stop();
});
