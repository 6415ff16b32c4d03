import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { Config } from '../../../src/config/schema.js';
import { generationOrigin, providerNameOf } from '../../../src/task-types/output-origin.js';

const graph = {
  '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20 } },
  '9': { class_type: 'SaveImage', inputs: { images: ['3', 0] } },
};
const config = { workflows: { 'models.comfy': { file: '/w.json', graph, bindings: {} } } } as unknown as Config;
const run = {
  taskId: 'task_1',
  taskType: 'image.generate',
  section: 'models' as const,
  prompt: 'a cat',
  parameters: { size: '64x64', seed: 3 },
};

test("a ComfyUI model's origin hashes its workflow as loaded; a posted graph is hashed instead; keys in any order hash the same", () => {
  const own = generationOrigin(config, { ...run, model: 'comfy' });
  const canonical =
    '{"3":{"class_type":"KSampler","inputs":{"seed":1,"steps":20}},"9":{"class_type":"SaveImage","inputs":{"images":["3",0]}}}';
  assert.equal(own.workflowSha256, createHash('sha256').update(canonical).digest('hex'));
  assert.equal(own.parametersSha256, undefined);
  const reordered = { '9': graph['9'], '3': { inputs: { steps: 20, seed: 1 }, class_type: 'KSampler' } };
  assert.equal(
    generationOrigin(config, { ...run, model: 'comfy', postedWorkflow: reordered }).workflowSha256,
    own.workflowSha256,
  );
  const posted = generationOrigin(config, {
    ...run,
    model: 'comfy',
    postedWorkflow: { '1': { class_type: 'SaveImage', inputs: {} } },
  });
  assert.notEqual(posted.workflowSha256, own.workflowSha256, 'the graph that ran is the one hashed');
});

test("any other model's origin hashes its generation parameters with the model; created without an input, edited from the first one", () => {
  const origin = generationOrigin(config, { ...run, model: 'placeholder', seed: 3, provider: 'gpu-1', rating: 'sfw' });
  assert.equal(origin.workflowSha256, undefined);
  assert.match(origin.parametersSha256!, /^[0-9a-f]{64}$/);
  assert.notEqual(
    generationOrigin(config, { ...run, model: 'other' }).parametersSha256,
    origin.parametersSha256,
    'the model is a parameter',
  );
  assert.deepEqual(
    {
      action: origin.action,
      model: origin.model,
      provider: origin.provider,
      seed: origin.seed,
      rating: origin.rating,
      prompt: origin.prompt,
      ingredient: origin.ingredient,
    },
    {
      action: 'created',
      model: 'placeholder',
      provider: 'gpu-1',
      seed: 3,
      rating: 'sfw',
      prompt: 'a cat',
      ingredient: undefined,
    },
  );
  const input = { data: Buffer.from('jpeg bytes'), format: 'jpeg' as const, width: 4, height: 4 };
  const edited = generationOrigin(config, { ...run, model: 'placeholder', input, inputTitle: 'first-frame' });
  assert.equal(edited.action, 'edited');
  assert.deepEqual(edited.ingredient, { data: input.data, mimeType: 'image/jpeg', title: 'first-frame.jpg' });
});

test('the provider an attempt picked is named by the lookup that answers it', () => {
  const providers: Record<string, object> = { a: {}, b: {} };
  assert.equal(
    providerNameOf(['a', 'b'], (name) => providers[name], providers.b),
    'b',
  );
  assert.equal(
    providerNameOf(['a'], (name) => providers[name], {}),
    undefined,
  );
});
