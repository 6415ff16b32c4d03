import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.js';

const ROOT = join(import.meta.dirname, '../..');

test('the fleet compose file: PostgreSQL, MinIO, init before every imgtask process, API without work, workers', async () => {
  const compose = parse(await readFile(join(ROOT, 'compose.fleet.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, any>;
  };
  const { services } = compose;
  assert.deepEqual(Object.keys(services).sort(), ['api', 'bucket', 'init', 'minio', 'postgres', 'proxy', 'worker']);
  assert.deepEqual(services.api.command.slice(2), ['serve', '--no-work', '--host', '0.0.0.0']);
  assert.deepEqual(services.worker.command.slice(2), ['worker']);
  for (const name of ['api', 'worker']) {
    assert.deepEqual(
      services[name].depends_on,
      { init: { condition: 'service_completed_successfully' } },
      `${name} starts after init`,
    );
    assert.ok(services[name].volumes.includes('imgtask-keys:/data/keys'), `${name} shares the keys`);
    assert.match(services[name].environment.IMGTASK_DATABASE_URL, /^postgres:\/\/imgtask:.*@postgres:5432\/imgtask$/);
  }
  assert.match(services.init.command.join(' '), /imgtask migrate && imgtask doctor/);
  assert.equal(services.init.depends_on.postgres.condition, 'service_healthy');
});

test('the fleet config file is a valid imgtask config: PostgreSQL from the environment, images on the bucket', () => {
  const file = join(ROOT, 'deploy/fleet.json');
  const config = loadConfig({
    file,
    env: { IMGTASK_DATABASE_URL: 'postgres://imgtask:x@postgres:5432/imgtask', IMGTASK_S3_SECRET: 'secret' },
  });
  assert.equal(config.store.driver, 'postgres');
  assert.equal(config.images.storage, 's3');
  assert.equal(config.images.s3?.endpoint, 'http://minio:9000');
});
