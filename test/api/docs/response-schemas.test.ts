import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routesOf } from '../../../src/api/route.js';
import { TASK_MODULES } from '../../../src/task-types/task-modules.js';
import { startService, waitForTask } from '../../helpers/harness.js';
import { createResponseChecker } from '../../helpers/response-check.js';

test('every documented route declares its answer: a response schema, or the content type it serves', async (t) => {
  const h = await startService(t);
  const undeclared = routesOf(h.server.api).filter((route) => !route.response && !route.produces);
  assert.deepEqual(undeclared, []);
  const doc = (await h.request('GET', '/openapi.json')).json;
  const task = doc.paths['/tasks/{id}'].get.responses['200'].content['application/json'].schema.properties.data;
  assert.deepEqual(task, { $ref: '#/components/schemas/Task' });
  const members = doc.components.schemas.Task.oneOf;
  assert.equal(members.length, TASK_MODULES.length, 'a task is described per built-in type, each with its own result');
});

test('an answer outside its route schema fails the check the harness runs on every answer', async (t) => {
  const h = await startService(t);
  const check = createResponseChecker(h.server.api);
  const { taskId } = (await h.request('POST', '/image/generate', { auth: h.apiKey, body: { prompt: 'a fox' } })).json
    .data;
  const task = await waitForTask(h, taskId);
  check('GET', `/tasks/${taskId}`, 200, { data: task });

  const mangled = {
    ...task,
    result: { ...task.result, images: [{ status: 'success', id: task.result.images[0].id }] },
  };
  assert.throws(
    () => check('GET', `/tasks/${taskId}`, 200, { data: mangled }),
    /GET \/tasks\/tsk_\w+ answered 200 outside its response schema: data\.result/,
  );
  assert.throws(() => check('GET', '/health', 200, { data: { status: 'fine' } }), /outside its response schema/);
  assert.doesNotThrow(() => check('GET', '/health', 404, { code: 'NOT_FOUND' }), 'errors are not success answers');
});
