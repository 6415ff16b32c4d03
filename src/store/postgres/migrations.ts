import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { clientConfig } from './connection.js';

/**
 * The schema, as ordered migrations: the numbered `.sql` files in sql/ at the package root. Each runs once, in its own
 * transaction, recorded in `imgtask_schema_migrations`. Never edit a released one: add the next.
 *
 * Conventions: ids, names and times are `text COLLATE "C"` (byte order, the order JS compares
 * strings in); money is `bigint` micro-USD; records are JSON text (see sql.ts); `seq` (one shared
 * sequence) keeps insertion order, the order the file store lists records in.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The folder of the `.sql` files, `sql/` at the package root: this module runs from src/ (tsx) and from dist/
 * (built), both one level below the root; package.json "files" ships the folder.
 */
const MIGRATIONS_DIR = new URL('../../../sql/', import.meta.url);

/** `0003-idempotency-keys.sql`: the version is the number; the first line, `-- Migration: <name>`, names it. */
const FILE_NAME = /^(\d+)-[a-z0-9-]+\.sql$/;
const HEADER = /^-- Migration: (.+)\n/;

function readMigrations(dir: URL): Migration[] {
  const files = readdirSync(dir).filter((file) => file.endsWith('.sql'));
  return files
    .map((file) => {
      const version = FILE_NAME.exec(file)?.[1];
      const text = readFileSync(new URL(file, dir), 'utf8');
      const header = HEADER.exec(text);
      if (version === undefined || !header)
        throw new Error(`migration ${file}: expected NNNN-name.sql starting "-- Migration: <name>"`);
      return { version: Number(version), name: header[1], sql: text.slice(header[0].length) };
    })
    .sort((a, b) => a.version - b.version);
}

export const MIGRATIONS: readonly Migration[] = readMigrations(MIGRATIONS_DIR);

export const LATEST_SCHEMA = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Serialises migrations across processes: held by each migration's transaction. */
const MIGRATION_LOCK = 0x1a6_7a5c;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS imgtask_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;

/** Anything that runs a statement: a client or a pool. */
interface Queryable {
  query(text: string): Promise<pg.QueryResult>;
}

/** The schema version applied to a database; 0 when it has none. */
export async function currentVersion(db: Queryable): Promise<number> {
  const exists = await db.query(`SELECT to_regclass('imgtask_schema_migrations')::text AS found`);
  if (exists.rows[0].found === null) return 0;
  const { rows } = await db.query('SELECT max(version) AS version FROM imgtask_schema_migrations');
  return (rows[0].version as number | null) ?? 0;
}

export const newerSchemaMessage = (current: number): string =>
  `this imgtask is older than the database schema v${current}; upgrade imgtask (this one knows schema v${LATEST_SCHEMA})`;

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...clientConfig(url), application_name: 'imgtask migrate' });
  // A connection that breaks between statements fails the next one; unheard, its 'error' would end the process.
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Applies the pending migrations in order, each in its own transaction under a
 * transaction-level advisory lock: two processes migrating at once apply each migration once.
 * Idempotent. Refuses a database whose schema is newer than this code.
 */
export async function migrate(
  url: string,
  log?: (message: string) => void,
): Promise<{ from: number; to: number; applied: string[] }> {
  return withClient(url, async (client) => {
    const applied: string[] = [];
    let from: number | undefined;
    for (;;) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        await client.query(CREATE_TABLE);
        const current = await currentVersion(client);
        from ??= current;
        if (current > LATEST_SCHEMA) throw new Error(newerSchemaMessage(current));
        const next = MIGRATIONS.find((migration) => migration.version > current);
        if (!next) {
          await client.query('COMMIT');
          return { from, to: current, applied };
        }
        await client.query(next.sql);
        await client.query('INSERT INTO imgtask_schema_migrations (version, name) VALUES ($1, $2)', [
          next.version,
          next.name,
        ]);
        await client.query('COMMIT');
        applied.push(`${next.version} ${next.name}`);
        log?.(`migration ${next.version} (${next.name}) applied`);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
  });
}

/** The schema version of the database (0: none yet) and the newest this code knows. */
export async function schemaVersion(url: string): Promise<{ current: number; latest: number }> {
  return withClient(url, async (client) => ({ current: await currentVersion(client), latest: LATEST_SCHEMA }));
}

/** Why this code cannot use a database at schema `current`, or null when it can. */
export function schemaProblem(current: number): string | null {
  if (current === 0) return 'the database has no imgtask schema yet: run imgtask migrate';
  if (current < LATEST_SCHEMA)
    return `the database has schema v${current} and this imgtask needs v${LATEST_SCHEMA}: run imgtask migrate`;
  if (current > LATEST_SCHEMA) return newerSchemaMessage(current);
  return null;
}
