import { after, type TestContext } from 'node:test';
import pg from 'pg';
import { JsonStore } from '../../../src/store/file/json-store.js';
import { migrate, PgStore } from '../../../src/store/postgres/postgres-store.js';
import type { Store } from '../../../src/store/store-contract.js';
import { testDatabase } from '../../helpers/postgres.js';
import { closeBeforeRemoval, tempDir } from '../../helpers/temp-dir.js';

export interface Backend {
  name: 'file' | 'postgres';
  /** A fresh, empty store, closed (and its data removed) when the test ends. */
  open(t: TestContext): Promise<Store>;
}

/**
 * One database per test file, dropped when the file's tests end; each test gets a schema of its own in it (far cheaper
 * than a database).
 */
let shared: Promise<{ url: string; drop: () => Promise<void> }> | undefined;

function sharedDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  shared ??= (async () => {
    const drops: (() => Promise<void>)[] = [];
    const url = await testDatabase({ after: (fn: () => Promise<void>) => drops.push(fn) } as unknown as TestContext);
    return { url, drop: async () => Promise.all(drops.map((drop) => drop())).then(() => {}) };
  })();
  return shared;
}

after(async () => {
  if (shared) await (await shared).drop();
});

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated, empty schema; its URL names it (search_path). Dropped when the test ends,
 * after `beforeDrop` (closing the stores on it): `after` hooks run in the order they were added.
 */
export async function migratedSchema(
  t: TestContext,
  beforeDrop: (() => Promise<void>)[],
  options: { migrated?: boolean } = {},
): Promise<string> {
  const { url: base } = await sharedDatabase();
  const schema = `s_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await admin(base, (client) => client.query(`CREATE SCHEMA ${schema}`));
  t.after(async () => {
    for (const close of beforeDrop) await close();
    await admin(base, (client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
  });
  const url = new URL(base);
  // Commits need not wait for the disk here: what these tests check is what each transaction sees and locks.
  url.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  if (options.migrated !== false) await migrate(url.toString());
  return url.toString();
}

export const jsonBackend: Backend = {
  name: 'file',
  async open(t) {
    const dir = await tempDir(t);
    const store = await JsonStore.open({ dir });
    closeBeforeRemoval(dir, () => store.close());
    return store;
  },
};

export const pgBackend: Backend = {
  name: 'postgres',
  async open(t) {
    const closers: (() => Promise<void>)[] = [];
    const url = await migratedSchema(t, closers);
    const store = await PgStore.open({ url, poolSize: 10 });
    closers.push(() => store.close());
    return store;
  },
};

export const BACKENDS: readonly Backend[] = [jsonBackend, pgBackend];
