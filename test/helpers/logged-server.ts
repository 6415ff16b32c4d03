import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../src/api/api-deps.js';
import { createLogger } from '../../src/app/logger.js';
import { startServer } from '../../src/app/server.js';
import { deepMerge, type JsonObject, loadConfig } from '../../src/config/load.js';
import { fakeProviders } from '../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../fixtures/test-task-type.js';
import { testStoreConfig } from './harness.js';
import { closeBeforeRemoval, tempDir } from './temp-dir.js';

export type LogLine = Record<string, any>;

/**
 * A real server (on the store under test) whose structured log the test reads as JSON lines,
 * with the test routes (and `extendApi`'s), and an API key of a funded account.
 */
export async function startLoggedServer(
  t: TestContext,
  options: { config?: JsonObject; extendApi?: (app: Hono<ApiEnv>, deps: ApiDeps) => void } = {},
) {
  const dataDir = await tempDir(t);
  let written = '';
  const destination = new Writable({
    write(chunk, _encoding, done) {
      written += chunk;
      done();
    },
  });
  const base = deepMerge(
    { server: { host: '127.0.0.1', port: 0 }, work: { shutdownGraceMs: 200 } },
    await testStoreConfig(t),
  );
  const server = await startServer({
    dataDir,
    config: loadConfig({ env: {}, overrides: deepMerge(base, options.config ?? {}) }),
    logger: createLogger({ level: 'info', format: 'json' }, { destination }),
    taskTypes: [testTaskType as never],
    extendApi: (app, deps) => {
      mountTestRoutes(app, deps);
      options.extendApi?.(app, deps);
    },
    providers: fakeProviders(),
  });
  closeBeforeRemoval(dataDir, () => server.close());
  const account = await server.services.accounts.create('logged', 10_000_000);
  const { raw } = await server.services.apiKeys.create({ accountId: account.id, name: 'logged' });
  return {
    server,
    apiKey: raw,
    /** Everything the log holds so far, as written. */
    written: () => written,
    lines: (): LogLine[] =>
      written
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
  };
}
