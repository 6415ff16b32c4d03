import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/config/load.js';
import { eventually, send } from '../helpers/harness.js';
import { closeBeforeRemoval, tempDir } from '../helpers/temp-dir.js';

const model = (perImage: string) => ({
  models: {
    placeholder: {
      provider: 'placeholder',
      price: { perImage, perInput: '0' },
      capabilities: { maxInputs: 4, supports4k: false, negativePrompt: true },
    },
  },
});

test('serve reloads its config file: a new price is used by the next estimate; an invalid edit is refused and the old config stays', async (t) => {
  const data = await tempDir(t);
  const file = join(data, 'imgtask.json');
  await writeFile(file, JSON.stringify(model('0.01')));
  const logs: string[] = [];
  const flags = { port: 0 };
  const server = await startServer({
    dataDir: data,
    config: loadConfig({ file, flags, env: {} }),
    configFile: { path: file, flags },
    log: (m) => logs.push(m),
  });
  closeBeforeRemoval(data, () => server.close());
  const account = await server.services.accounts.create('acme', 1_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id });
  const estimate = async () =>
    (
      await send(server.url, 'POST', '/tasks/estimate', {
        auth: raw,
        body: { type: 'image.generate', request: { prompt: 'p', count: 2 } },
      })
    ).json.data.estimatedCost;
  assert.equal(await estimate(), '0.02');

  await writeFile(file, JSON.stringify(model('0.05')));
  await eventually(() => logs.some((m) => m.startsWith('config: reloaded')), 5000);
  assert.equal(await estimate(), '0.1', 'the next estimate uses the new price');

  await writeFile(
    file,
    JSON.stringify({
      models: {
        placeholder: { ...model('0.07').models.placeholder, price: { perImage: 'seven cents', perInput: '0' } },
      },
    }),
  );
  await eventually(() => logs.some((m) => m.startsWith('config: reload refused')), 5000);
  assert.match(logs.find((m) => m.startsWith('config: reload refused'))!, /models\.placeholder\.price\.perImage/);
  assert.equal(await estimate(), '0.1', 'the old config stays in force');

  await writeFile(file, JSON.stringify({ ...model('0.05'), server: { bodyLimitBytes: 2048 } }));
  await eventually(() => logs.some((m) => m.includes('server changes apply at the next start')), 5000);
});
