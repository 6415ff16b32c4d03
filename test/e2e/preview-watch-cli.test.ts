import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { runCli } from '../helpers/cli.js';
import { eventually, startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';

test('imgtask generate --watch prints a line per live preview of a ComfyUI model (on stderr beside the JSON answer), and no image bytes off a terminal', async (t) => {
  const fake = await startFakeComfyUi(t, { stepDelayMs: 100, maxSteps: 12 });
  const dir = await tempDir(t);
  const workflow = join(dir, 'flux.json');
  await writeFile(workflow, JSON.stringify(txt2imgWorkflow()));
  const h = await startService(t, {
    config: {
      providers: { gpu: { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      models: {
        flux: {
          providers: ['gpu'],
          workflow,
          bindings: { prompt: '6.inputs.text', seed: '3.inputs.seed', width: '5.inputs.width', height: '5.inputs.height', batchSize: '5.inputs.batch_size' },
          price: { perImage: '0.01', perInput: '0.002' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
        },
      },
    },
  });
  // The job waits at its first step until the CLI follows the task's stream: the steps after it are seen live.
  fake.holdJobs();
  const watched = runCli(['generate', 'a lighthouse at dawn', '--model', 'flux', '--format', 'png', '--watch'], {
    IMGTASK_URL: h.url,
    IMGTASK_API_KEY: h.apiKey,
    TERM_PROGRAM: 'iTerm.app',
    TERM: 'xterm-kitty',
  });
  await eventually(() => h.server.services.taskStreams.stats().streams > 0, 30_000);
  fake.releaseJobs();
  const result = await watched;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.json?.status, 'completed', 'stdout is still one JSON document');
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('item '));
  assert.ok(lines.length >= 1, `a preview line: ${result.stderr}`);
  for (const line of lines) assert.match(line, /^item 0: preview \d+ (B|KB)$/);
  // Not a terminal: no escape sequence, whatever TERM says.
  assert.ok(!/\x1b/.test(result.stderr + result.stdout), 'no inline image off a terminal');
});
