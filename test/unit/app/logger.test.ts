import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, messageLog } from '../../../src/app/logger.js';
import { openServices } from '../../../src/app/services.js';
import { loadConfig } from '../../../src/config/load.js';
import { closeBeforeRemoval, tempDir } from '../../helpers/temp-dir.js';

/** A destination that keeps what is written; `isTTY` as a terminal would say. */
function memory(isTTY = false) {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => chunks.join('') };
}

test('log.format json (and auto off a terminal) writes one JSON line per entry: level by name, ISO time, no pid or hostname', () => {
  for (const format of ['json', 'auto'] as const) {
    const out = memory(false);
    createLogger({ level: 'info', format }, { destination: out.stream }).info({ event: 'x', n: 1 }, 'hello');
    const line = JSON.parse(out.text().trim());
    assert.equal(line.level, 'info');
    assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      { event: line.event, n: line.n, msg: line.msg, pid: line.pid, hostname: line.hostname },
      { event: 'x', n: 1, msg: 'hello', pid: undefined, hostname: undefined },
    );
  }
});

test('log.format pretty (and auto on a terminal) writes readable lines, not JSON', () => {
  for (const [format, tty] of [
    ['pretty', false],
    ['auto', true],
  ] as const) {
    const out = memory(tty);
    createLogger({ level: 'info', format }, { destination: out.stream }).info(
      { route: '/tasks/:id' },
      'GET /tasks/:id 200',
    );
    const text = out.text();
    assert.match(text, /INFO/);
    assert.match(text, /GET \/tasks\/:id 200/);
    assert.throws(() => JSON.parse(text.trim()), `${format} is not JSON`);
  }
});

test('messageLog: a leading "word: " becomes the component, failures are warnings, the rest info; below the level nothing is written', () => {
  const out = memory();
  const log = messageLog(createLogger({ level: 'info', format: 'json' }, { destination: out.stream }));
  log('models: nsfw rating loaded in the background in 900 ms');
  log('config: reload of /etc/imgtask.json failed: bad key');
  log('no component here');
  const lines = out
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => [l.level, l.component]),
    [
      ['info', 'models'],
      ['warn', 'config'],
      ['info', undefined],
    ],
  );
  const quiet = memory();
  messageLog(createLogger({ level: 'warn', format: 'json' }, { destination: quiet.stream }))('models: loaded');
  assert.equal(quiet.text(), '');
});

test('a config reload applies log.level to the running service at once', async (t) => {
  const dataDir = await tempDir(t);
  const out = memory();
  const config = loadConfig({ env: {}, overrides: { server: { host: '127.0.0.1', port: 0 } } });
  const services = (
    await openServices({
      dataDir,
      config,
      logger: createLogger(config.log, { destination: out.stream }),
    })
  ).internals;
  closeBeforeRemoval(dataDir, () => services.close());
  services.log('test: before the reload');
  await services.reload({ ...config, log: { level: 'warn', format: 'auto' } });
  services.log('test: after the reload');
  services.log('test: this failed');
  const messages = out
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).msg)
    // The service's own start lines (the first start's local signing certificate) are not what is checked.
    .filter((m: string) => m.startsWith('test: '));
  assert.deepEqual(messages, ['test: before the reload', 'test: this failed']);
});
