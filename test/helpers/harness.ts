import type { TestContext } from 'node:test';
import { createLogger } from '../../src/app/logger.js';
import { type RunningServer, startServer } from '../../src/app/server.js';
import type { ServiceOptions } from '../../src/app/services.js';
import { deepMerge, type JsonObject, loadConfig } from '../../src/config/load.js';
import { ALL_SCOPES } from '../../src/domain/scopes.js';
import type { ProviderSet } from '../../src/providers/provider-types.js';
import type { Clock } from '../../src/services/ports.js';
import type { StorageFs } from '../../src/store/durable-fs.js';
import { fakeProviders } from '../fixtures/test-providers.js';
import { mountTestRoutes, testTaskType } from '../fixtures/test-task-type.js';
import { createResponseChecker } from './response-check.js';
import { closeBeforeRemoval, tempDir } from './temp-dir.js';

export interface Harness {
  url: string;
  dataDir: string;
  server: RunningServer;
  accountId: string;
  /** Raw API key with every API-key scope. */
  apiKey: string;
  keyId: string;
  /** OAuth access token with every scope, valid one hour. */
  token: string;
  logs: string[];
  /**
   * The config overrides naming the store under test (see testStoreConfig): a test that starts
   * another server on the same state merges them into its config.
   */
  storeConfig: JsonObject;
  /** A request over real HTTP; a 2xx JSON answer is checked against its route's response schema. */
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
}

export interface RequestOptions {
  /** Bearer credential; null sends no Authorization header. */
  auth?: string | null;
  /** A value to send as JSON, or a string sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function send(
  url: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.authorization = `Bearer ${options.auth}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The store backend the tests run on: IMGTASK_TEST_STORE, "file" (the default) or "postgres". */
export function testStore(): 'file' | 'postgres' {
  const chosen = process.env.IMGTASK_TEST_STORE || 'file';
  if (chosen !== 'file' && chosen !== 'postgres')
    throw new Error(`IMGTASK_TEST_STORE: "file" or "postgres", not "${chosen}"`);
  return chosen;
}

/**
 * The config overrides selecting the store under test: none for the file store (the data
 * dir's journal); for PostgreSQL, a fresh database on the test server, migrated, dropped when
 * the test ends (after the folders of tempDir are removed and what uses them is closed).
 */
export async function testStoreConfig(t: TestContext): Promise<JsonObject> {
  if (testStore() === 'file') return {};
  const [{ testDatabase }, { migrate }] = await Promise.all([
    import('./postgres.js'),
    import('../../src/store/postgres/postgres-store.js'),
  ]);
  const url = await testDatabase(t);
  await migrate(url);
  return { store: { driver: 'postgres', postgres: { url, poolSize: 4 } } };
}

/**
 * A real server on an ephemeral port over a fresh temporary data dir, with one seeded
 * account ("acme", 100 USD), an API key and an access token. Closed when the test ends.
 * The store is the one IMGTASK_TEST_STORE names (testStoreConfig).
 */
export async function startService(
  t: TestContext,
  options: {
    config?: JsonObject;
    clock?: Clock;
    credit?: number;
    providers?: Partial<ProviderSet>;
    storageFs?: StorageFs;
    loadC2pa?: ServiceOptions['loadC2pa'];
  } = {},
): Promise<Harness> {
  const dataDir = await tempDir(t);
  const storeConfig = await testStoreConfig(t);
  const logs: string[] = [];
  const config = loadConfig({
    env: {},
    overrides: deepMerge(
      deepMerge(
        {
          server: { host: '127.0.0.1', port: 0 },
          store: { verifyPayloads: true },
          work: { shutdownGraceMs: 200, retryBaseMs: 1 },
        },
        storeConfig,
      ),
      options.config ?? {},
    ),
  });
  const server = await startServer({
    dataDir,
    config,
    clock: options.clock,
    log: (m) => {
      logs.push(m);
      if (process.env.HARNESS_LOG) console.error('LOG', m);
    },
    // HARNESS_LOG=1 also shows the structured lines (access, task, webhook), pretty, on stderr.
    logger: process.env.HARNESS_LOG
      ? createLogger({ level: 'debug', format: 'pretty' }, { destination: process.stderr })
      : undefined,
    taskTypes: [testTaskType as never],
    extendApi: mountTestRoutes,
    providers: options.providers ?? fakeProviders(),
    storageFs: options.storageFs,
    loadC2pa: options.loadC2pa,
  });
  closeBeforeRemoval(dataDir, () => server.close());
  const { services } = server;
  const checkAnswer = createResponseChecker(server.api);
  const account = await services.accounts.create('acme', (options.credit ?? 100) * 1_000_000);
  const { apiKey, raw } = await services.apiKeys.create({ accountId: account.id, name: 'harness' });
  const { accessToken } = await services.tokens.issueAccessToken(account.id, ALL_SCOPES, 3_600_000);
  return {
    url: server.url,
    dataDir,
    server,
    accountId: account.id,
    apiKey: raw,
    keyId: apiKey.id,
    token: accessToken,
    logs,
    storeConfig,
    request: async (method, path, requestOptions) => {
      const res = await send(server.url, method, path, requestOptions);
      checkAnswer(method, path, res.status, res.json);
      return res;
    },
  };
}

/** Polls a task's status until it settles; returns the full task (read with the harness key). */
export async function waitForTask(h: Harness, taskId: string, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey });
    if (res.json?.data?.status && res.json.data.status !== 'pending') return res.json.data;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The account as the operator sees it: balance, reserved, available. */
export async function accountOf(h: Harness): Promise<{ balance: string; reserved: string; available: string }> {
  const { toAccountView } = await import('../../src/services/accounts.js');
  const store = h.server.services.store;
  return toAccountView((await store.accounts.get(h.accountId))!, await store.tasks.reserved(h.accountId));
}

/** Waits until `check` returns true (polling), or fails after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Waits until no task is pending, every settled task's event is recorded and no delivery is
 * pending: from then on, every request a receiver will ever get for them has been made.
 */
export async function webhooksQuiet(h: Harness, timeoutMs = 5000): Promise<void> {
  const { store } = h.server.services;
  const quiet = async () =>
    (await store.tasks.countPending()) === 0 &&
    (await store.webhooks.settledWithoutEvent()).length === 0 &&
    (await store.webhooks.deliveryCounts()).pending === 0;
  await eventually(quiet, timeoutMs);
}
