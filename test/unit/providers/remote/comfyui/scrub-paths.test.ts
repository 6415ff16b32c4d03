import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ProviderError } from '../../../../../src/domain/task-status.js';
import { comfyHttp } from '../../../../../src/providers/remote/comfyui/comfy-http.js';
import { describeExecutionError } from '../../../../../src/providers/remote/comfyui/execution-error.js';
import { scrubPaths } from '../../../../../src/providers/remote/comfyui/scrub-paths.js';

test('scrubPaths: absolute POSIX, Windows and UNC paths keep their last two segments, never a user name', () => {
  const cases: [string, string][] = [
    ['Invalid image file: /home/alice/ComfyUI/input/x.png', 'Invalid image file: …/input/x.png'],
    [
      "No such file or directory: '/home/John Smith/ComfyUI/output/x.png'",
      "No such file or directory: '…/output/x.png'",
    ],
    ['cannot write C:\\Users\\bob\\ComfyUI\\output\\x.png.', 'cannot write …/output/x.png.'],
    ['cannot write (C:\\Users\\bob\\ComfyUI\\output\\x.png)', 'cannot write (…/output/x.png)'],
    ['"D:\\AI Tools\\ComfyUI\\models\\vae\\ae.sft" is missing', '"…/vae/ae.sft" is missing'],
    ['C:/Users/bob/ComfyUI/output/x.png failed', '…/output/x.png failed'],
    ['\\\\nas\\share\\ComfyUI\\models\\x.safetensors missing', '…/models/x.safetensors missing'],
    ['/tmp/x.png: bad', '…/tmp/x.png: bad'],
    // A file right in a home folder: the folder is a user's name, and is not kept.
    ['cannot read /home/alice/x.png', 'cannot read …/x.png'],
    ['cannot read C:\\Users\\bob\\x.png', 'cannot read …/x.png'],
  ];
  for (const [text, scrubbed] of cases) assert.equal(scrubPaths(text), scrubbed, text);
});

test('scrubPaths leaves what is not a server path alone: URLs, ratios, relative names, plain messages', () => {
  for (const text of [
    'see http://gpu-1:8188/view/a/b',
    'a 1/2 step and/or 16/9',
    'Value not in list: ckpt_name: sd_xl.safetensors not in [a.safetensors, b/c.safetensors]',
    'mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)',
    'Allocation on device 0 would exceed allowed memory. (out of memory)',
  ]) {
    assert.equal(scrubPaths(text), text);
  }
});

test('describeExecutionError: out of memory and GPU runtime errors may pass on another try; any other exception will not', () => {
  const retryable = (exception_type: string, exception_message: string) =>
    describeExecutionError({ node_id: '3', node_type: 'KSampler', exception_type, exception_message }).retryable;
  assert.equal(retryable('torch.OutOfMemoryError', 'Allocation on device 0 would exceed allowed memory.'), true);
  assert.equal(retryable('torch.cuda.OutOfMemoryError', 'CUDA out of memory. Tried to allocate 20.00 MiB'), true);
  assert.equal(retryable('RuntimeError', 'CUDA error: an illegal memory access was encountered'), true);
  assert.equal(retryable('RuntimeError', 'HIP error: out of memory'), true);
  assert.equal(retryable('RuntimeError', 'MPS backend out of memory (MPS allocated: 1 GB)'), true);
  assert.equal(retryable('ValueError', 'too many values to unpack (expected 2)'), false);
  assert.equal(
    retryable('FileNotFoundError', "[Errno 2] No such file or directory: '/srv/ComfyUI/models/x.safetensors'"),
    false,
  );
  assert.equal(
    retryable(
      'RuntimeError',
      'Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!',
    ),
    false,
  );
  assert.equal(retryable('Exception', 'a custom node failed'), false);
});

test('describeExecutionError: one line, with the node, its class and the exception, server paths taken out; the raw text kept for operators', () => {
  const failure = describeExecutionError({
    node_id: '10',
    node_type: 'LoadImage',
    exception_type: 'FileNotFoundError',
    exception_message: "[Errno 2] No such file or directory: '/home/alice/ComfyUI/input/x.png'\n",
  });
  assert.equal(
    failure.message,
    "node 10 (LoadImage): FileNotFoundError: [Errno 2] No such file or directory: '…/input/x.png'",
  );
  assert.match(failure.raw, /\/home\/alice/);
});

test('node_errors reach the item without server paths', async (t) => {
  const server = createServer((req, res) => {
    req.resume();
    res.statusCode = 400;
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' },
        node_errors: {
          '4': {
            class_type: 'CheckpointLoaderSimple',
            errors: [
              {
                message: 'Custom validation failed for node',
                details: "ckpt_name: '/home/alice/ComfyUI/models/checkpoints/sd.safetensors' not found",
              },
            ],
          },
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const http = comfyHttp({
    name: 'gpu-1',
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    headers: {},
  });
  const err = await http.queuePrompt({}, 'client', new AbortController().signal).then(
    () => assert.fail('refused'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ProviderError);
  assert.equal(err.code, 'INVALID_INPUT');
  assert.match(
    err.message,
    /node 4 \(CheckpointLoaderSimple\): Custom validation failed for node — ckpt_name: '…\/checkpoints\/sd\.safetensors' not found/,
  );
  assert.doesNotMatch(err.message, /alice/);
});
