import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `imgtask doctor` checks each ComfyUI server (GET /system_stats and GET /queue, with the
 * server's headers) and reads each workflow file again against its bindings; it exits 1 when a
 * server does not answer or a workflow no longer matches.
 */
test('doctor reports each ComfyUI server and workflow, and exits 1 when one is down or broken', async (t) => {
  const fake = await startFakeComfyUi(t);
  const data = await tempDir(t);
  const workflow = join(data, 'flow.json');
  await writeFile(workflow, JSON.stringify(txt2imgWorkflow()));
  const model = (providers: string[]) => ({
    providers,
    workflow: 'flow.json',
    bindings: { prompt: '6.inputs.text', seed: '3.inputs.seed' },
    price: { perImage: '0.01', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  });
  const config = join(data, 'imgtask.json');
  // Header values as written, from the encrypted secret store, and from the environment.
  const headers = {
    'x-proxy-key': 'k1',
    authorization: { secret: 'comfy-proxy' },
    'x-from-env': { env: 'COMFY_HEADER_TEST' },
  };
  await writeFile(
    config,
    JSON.stringify({
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl, headers } },
      models: { flux: model(['gpu-1']) },
    }),
  );
  await runCli(['--data', data, 'accounts', 'create', 'acme']);
  assert.equal(
    (await runCli(['--data', data, 'secrets', 'set', 'comfy-proxy', '--value', 'Bearer from-the-store'])).code,
    0,
  );
  const ok = await runCli(['--data', data, '--config', config, 'doctor'], { COMFY_HEADER_TEST: 'from-env' });
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.match(
    ok.stdout,
    new RegExp(`^comfyui gpu-1 ok: ${fake.baseUrl.replace(/[.]/g, '\\.')}, .*0 running, 0 waiting$`, 'm'),
  );
  assert.match(ok.stdout, /^workflow models\.flux ok: .*flow\.json, fits gpu-1$/m);
  const asked = fake.requests.filter(
    (r) => r.path === '/system_stats' || r.path === '/queue' || r.path === '/object_info',
  );
  assert.equal(asked.length, 3);
  assert.ok(
    asked.every(
      (r) =>
        r.headers['x-proxy-key'] === 'k1' &&
        r.headers.authorization === 'Bearer from-the-store' &&
        r.headers['x-from-env'] === 'from-env',
    ),
    `with the server headers, resolved: ${JSON.stringify(asked.map((r) => r.headers))}`,
  );

  // The workflow edited after the config loaded: its seed node is gone (doctor reads the file again).
  const graph = txt2imgWorkflow() as Record<string, unknown>;
  delete graph['3'];
  await writeFile(workflow, JSON.stringify(graph));
  const broken = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  // The config loads without that workflow: doctor reports it among its other checks and exits 1.
  assert.equal(broken.code, 1, broken.stdout + broken.stderr);
  assert.equal(broken.json.ledger.ok, true);
  assert.equal(broken.json.engines.comfyui[0].ok, true);
  assert.match(
    broken.json.problems.join('\n'),
    /^workflow models\.flux: .*flow\.json: bindings\.seed: no node "3" in the workflow$/m,
  );

  await writeFile(workflow, JSON.stringify(txt2imgWorkflow()));
  await fake.close();
  const down = await runCli(['--data', data, '--config', config, 'doctor', '--json']);
  assert.equal(down.code, 1, down.stdout + down.stderr);
  assert.equal(down.json.engines.comfyui[0].ok, false);
  assert.match(down.json.engines.comfyui[0].problem, /gpu-1/);
  assert.equal(down.json.engines.workflows[0].ok, true);
});
