import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, workflowsNotLoaded } from '../../../src/config/load.js';
import { txt2imgWorkflow } from '../../fakes/comfyui.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * What a config load tells of the workflow files it read: every one named (for the watcher), and, for doctor, those
 * that did not load.
 */
async function configWith(t: Parameters<typeof tempDir>[0]) {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'good.json'), JSON.stringify(txt2imgWorkflow()));
  await writeFile(join(dir, 'cut.json'), '{ "3": ');
  await writeFile(join(dir, 'editor.json'), JSON.stringify({ nodes: [], links: [] }));
  const model = (workflow: string) => ({
    providers: ['gpu'],
    workflow,
    bindings: { prompt: '6.inputs.text' },
    price: { perImage: '0.01', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  });
  const file = join(dir, 'imgtask.json');
  await writeFile(
    file,
    JSON.stringify({
      providers: { gpu: { type: 'comfyui', baseUrl: 'http://127.0.0.1:8188' } },
      models: { a: model('cut.json'), b: model('good.json'), c: model('editor.json') },
    }),
  );
  return { dir, file };
}

test('a load refused for its workflows names each broken one and reports every file it read, the broken ones included', async (t) => {
  const { dir, file } = await configWith(t);
  const read: string[] = [];
  assert.throws(
    () => loadConfig({ file, env: {}, read }),
    (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /^config: models\.a\.workflow: .*cut\.json: not valid JSON/m);
      assert.match(err.message, /^config: models\.c\.workflow: .*editor\.json: this is the editor format/m);
      return true;
    },
  );
  assert.deepEqual(read, [file, join(dir, 'cut.json'), join(dir, 'good.json'), join(dir, 'editor.json')]);
});

test('keepBrokenWorkflows loads the config without the workflows that do not load, and says which and why', async (t) => {
  const { dir, file } = await configWith(t);
  const config = loadConfig({ file, env: {}, keepBrokenWorkflows: true });
  assert.deepEqual(Object.keys(config.workflows), ['models.b']);
  const failures = workflowsNotLoaded(config);
  assert.deepEqual(
    failures.map((f) => [f.model, f.file]),
    [
      ['models.a', join(dir, 'cut.json')],
      ['models.c', join(dir, 'editor.json')],
    ],
  );
  assert.match(failures[0].problem, /not valid JSON/);
  assert.deepEqual(workflowsNotLoaded(loadConfig({ env: {} })), [], 'a config that loaded whole has none');
});
