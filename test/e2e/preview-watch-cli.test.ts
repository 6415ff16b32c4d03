import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { type FakeComfyUi, startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';
import { runCli } from '../helpers/cli.js';
import { eventually, type Harness, startService } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp-dir.js';
import { hasScript, startInTerminal } from '../helpers/terminal.js';

/** A service whose model `flux` runs on a fake ComfyUI that sends previews with each of 12 steps of 100 ms. */
async function comfyService(t: TestContext): Promise<{ fake: FakeComfyUi; h: Harness }> {
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
          bindings: {
            prompt: '6.inputs.text',
            seed: '3.inputs.seed',
            width: '5.inputs.width',
            height: '5.inputs.height',
            batchSize: '5.inputs.batch_size',
          },
          price: { perImage: '0.01', perInput: '0.002' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
        },
      },
    },
  });
  return { fake, h };
}

test('imgtask generate --watch prints a line per live preview of a ComfyUI model (on stderr beside the JSON answer), and no image bytes off a terminal', async (t) => {
  const { fake, h } = await comfyService(t);
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
  assert.ok(!(result.stderr + result.stdout).includes('\u001b'), 'no inline image off a terminal');
});

test('on a terminal --watch prints the preview line above its live view, and in iTerm2 draws the preview inline; elsewhere only the line', {
  skip: !hasScript && 'needs script (util-linux)',
}, async (t) => {
  const { fake, h } = await comfyService(t);
  const watchIn = async (env: Record<string, string>) => {
    fake.holdJobs();
    const running = startInTerminal(
      ['generate', 'a lighthouse at dawn', '--model', 'flux', '--format', 'png', '--watch'],
      { IMGTASK_URL: h.url, IMGTASK_API_KEY: h.apiKey, ...env },
    );
    await eventually(() => h.server.services.taskStreams.stats().streams > 0, 30_000);
    fake.releaseJobs();
    assert.equal(await running.exited, 0, running.screen());
    await eventually(() => h.server.services.taskStreams.stats().streams === 0);
    return running.screen();
  };
  const iterm = await watchIn({ TERM_PROGRAM: 'iTerm.app' });
  assert.match(iterm, /item 0: preview \d+ B/);
  assert.match(
    iterm,
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequence is what is checked
    /\x1b\]1337;File=inline=1;size=\d+;height=8;preserveAspectRatio=1:\/9j\//,
    'the JPEG drawn inline (iTerm2 protocol)',
  );
  const plain = await watchIn({ TERM_PROGRAM: 'Apple_Terminal' });
  assert.match(plain, /item 0: preview \d+ B/);
  assert.ok(!plain.includes('1337;File') && !plain.includes('\x1b_G'), 'no image where the terminal shows none');
});
