import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { watchConfig } from '../../../src/app/config-watch.js';
import type { Config } from '../../../src/config/schema.js';
import { eventually } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

test('a reload whose apply fails is logged, and the next edit of the file is still applied', async (t) => {
  const file = join(await tempDir(t), 'imgtask.json');
  await writeFile(file, '{}');
  const logs: string[] = [];
  const applied: number[] = [];
  const watcher = await watchConfig({
    file,
    flags: {},
    log: (message) => logs.push(message),
    apply: async (next: Config) => {
      if (applied.length === 0 && !logs.some((m) => m.includes('failed')))
        throw new Error('providers could not be built');
      applied.push(next.sync.timeoutMs);
      return { deferred: [] };
    },
  });
  t.after(() => watcher.close());
  await writeFile(file, JSON.stringify({ sync: { timeoutMs: 111 } }));
  await eventually(() => logs.some((m) => m.includes('failed')));
  assert.match(
    logs.find((m) => m.includes('failed'))!,
    /^config: reload of .*imgtask\.json failed: providers could not be built$/,
  );
  await writeFile(file, JSON.stringify({ sync: { timeoutMs: 222 } }));
  await eventually(() => applied.includes(222));
  assert.ok(logs.some((m) => m.startsWith('config: reloaded')));
});

test('an edit to a ComfyUI workflow file reloads the config: a broken one is refused and logged, the old config stays; a good one applies', async (t) => {
  const dir = await tempDir(t);
  const workflowFile = join(dir, 'flow.json');
  const graph: Record<string, { class_type: string; inputs: Record<string, unknown> }> = {
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'old', clip: ['4', 1] } },
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } },
  };
  await writeFile(workflowFile, JSON.stringify(graph));
  const file = join(dir, 'imgtask.json');
  await writeFile(
    file,
    JSON.stringify({
      providers: { gpu: { type: 'comfyui', baseUrl: 'http://127.0.0.1:8188' } },
      models: {
        flux: {
          providers: ['gpu'],
          workflow: 'flow.json',
          bindings: { prompt: '6.inputs.text' },
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
        },
      },
    }),
  );
  const { loadConfig } = await import('../../../src/config/load.js');
  const initial = loadConfig({ file, env: {} });
  const logs: string[] = [];
  const applied: string[] = [];
  const watcher = await watchConfig({
    file,
    flags: {},
    workflows: initial.workflows,
    log: (message) => logs.push(message),
    apply: async (next: Config) => {
      applied.push(String(next.workflows['models.flux'].graph['6'].inputs.text));
      return { deferred: [] };
    },
  });
  t.after(() => watcher.close());

  await writeFile(workflowFile, JSON.stringify({ '4': graph['4'] }));
  await eventually(() => logs.some((m) => m.includes('reload refused')));
  assert.match(
    logs.find((m) => m.includes('reload refused'))!,
    /models\.flux\.workflow: .*flow\.json: bindings\.prompt: no node "6"/,
  );
  assert.equal(applied.length, 0, 'the old config stays in force');

  await writeFile(
    workflowFile,
    JSON.stringify({ ...graph, '6': { ...graph['6'], inputs: { ...graph['6'].inputs, text: 'new' } } }),
  );
  await eventually(() => applied.includes('new'));
});

test('a reload refused for a new model whose workflow file does not parse is applied once that file is fixed, the config file untouched', async (t) => {
  const dir = await tempDir(t);
  const graph = {
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a', clip: ['4', 1] } },
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } },
  };
  await writeFile(join(dir, 'flow.json'), JSON.stringify(graph));
  const model = (workflow: string) => ({
    providers: ['gpu'],
    workflow,
    bindings: { prompt: '6.inputs.text' },
    price: { perImage: '0.01', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  });
  const file = join(dir, 'imgtask.json');
  const settings = (models: Record<string, unknown>) =>
    JSON.stringify({ providers: { gpu: { type: 'comfyui', baseUrl: 'http://127.0.0.1:8188' } }, models });
  await writeFile(file, settings({ flux: model('flow.json') }));
  const { loadConfig } = await import('../../../src/config/load.js');
  const initial = loadConfig({ file, env: {} });
  const logs: string[] = [];
  const applied: string[][] = [];
  const watcher = await watchConfig({
    file,
    flags: {},
    workflows: initial.workflows,
    log: (message) => logs.push(message),
    apply: async (next: Config) => {
      applied.push(Object.keys(next.workflows));
      return { deferred: [] };
    },
  });
  t.after(() => watcher.close());

  // A new model whose workflow file is cut short: the whole reload is refused.
  await writeFile(join(dir, 'sdxl.json'), '{ "6": { "class_type": ');
  await writeFile(file, settings({ flux: model('flow.json'), sdxl: model('sdxl.json') }));
  await eventually(() => logs.some((m) => m.includes('reload refused')));
  assert.match(logs.find((m) => m.includes('reload refused'))!, /models\.sdxl\.workflow: .*sdxl\.json: not valid JSON/);
  assert.equal(applied.length, 0, 'the old config stays in force');

  // Fixing the workflow file alone retries the refused reload.
  await writeFile(join(dir, 'sdxl.json'), JSON.stringify(graph));
  await eventually(() => applied.length > 0);
  assert.deepEqual(applied[0], ['models.flux', 'models.sdxl']);
  assert.ok(logs.some((m) => m.startsWith('config: reloaded')));
});
