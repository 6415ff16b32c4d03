import pg from 'pg';
import { clientConfig } from './sql.js';

/**
 * The schema, as ordered migrations. Each runs once, in its own transaction, recorded in
 * `imgtask_schema_migrations`. Never edit a released one: add the next.
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

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE SEQUENCE imgtask_order;

CREATE TABLE accounts (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  name_key text COLLATE "C" NOT NULL UNIQUE,
  balance bigint NOT NULL,
  reserved bigint NOT NULL DEFAULT 0,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX accounts_seq ON accounts (seq);

CREATE TABLE credits (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  doc text NOT NULL
);
CREATE INDEX credits_account ON credits (account_id, seq);

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  hash text COLLATE "C" NOT NULL,
  revoked_at text,
  doc text NOT NULL
);
CREATE UNIQUE INDEX api_keys_live_hash ON api_keys (hash) WHERE revoked_at IS NULL;
CREATE INDEX api_keys_live_account ON api_keys (account_id, seq) WHERE revoked_at IS NULL;

CREATE TABLE tasks (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C",
  type text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  estimate bigint NOT NULL,
  cost bigint NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text NOT NULL,
  event_id text COLLATE "C",
  settled_seq bigint,
  metadata_pairs text[] COLLATE "C" NOT NULL DEFAULT '{}',
  result text,
  errors text,
  prepared text,
  doc text NOT NULL
);
CREATE INDEX tasks_seq ON tasks (seq);
CREATE INDEX tasks_account ON tasks (account_id, id);
CREATE INDEX tasks_pending ON tasks (seq) WHERE status = 'pending';
CREATE INDEX tasks_type_status ON tasks (type, status);
CREATE INDEX tasks_without_event ON tasks (settled_seq) WHERE status <> 'pending' AND event_id IS NULL;
CREATE INDEX tasks_metadata ON tasks USING gin (metadata_pairs);

CREATE TABLE task_items (
  task_id text COLLATE "C" NOT NULL,
  idx integer NOT NULL,
  status text COLLATE "C" NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (task_id, idx)
);

CREATE TABLE key_spend (
  api_key_id text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  amount bigint NOT NULL,
  PRIMARY KEY (api_key_id, period)
);

CREATE TABLE secrets (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  doc text NOT NULL
);
CREATE INDEX secrets_seq ON secrets (seq);

CREATE TABLE webhooks (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  doc text NOT NULL
);
CREATE INDEX webhooks_seq ON webhooks (seq);
CREATE INDEX webhooks_account ON webhooks (account_id, seq);

CREATE TABLE events (
  id text COLLATE "C" PRIMARY KEY,
  task_id text COLLATE "C",
  doc text NOT NULL
);

CREATE TABLE deliveries (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  pending_seq bigint,
  webhook_id text COLLATE "C",
  status text COLLATE "C" NOT NULL,
  next_attempt_at text COLLATE "C",
  updated_at text NOT NULL,
  attempts text NOT NULL,
  doc text NOT NULL
);
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, id);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
CREATE INDEX deliveries_pending ON deliveries (pending_seq) WHERE status = 'pending';
CREATE INDEX deliveries_status ON deliveries (status);

CREATE TABLE destinations (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  name_key text COLLATE "C" NOT NULL,
  doc text NOT NULL,
  CONSTRAINT destinations_name UNIQUE (account_id, name_key)
);
CREATE INDEX destinations_account ON destinations (account_id, seq);
`,
  },
  {
    version: 2,
    name: 'task leases',
    // A pending task is run by the worker holding its lease; an expired lease is claimable again.
    // Times are the database's clock (now()), so workers on machines with skewed clocks agree.
    sql: `
ALTER TABLE tasks ADD COLUMN lease_owner text COLLATE "C", ADD COLUMN lease_until timestamptz;
`,
  },
  {
    version: 3,
    name: 'idempotency keys, key request windows, billing alerts',
    sql: `
-- The first answer to a creating POST sent with an Idempotency-Key, replayed for 24 h. While
-- the first request is in flight, claim holds its token and expires_at the claim's lapse (renewed).
CREATE TABLE idempotency_keys (
  account_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  claim text COLLATE "C",
  expires_at timestamptz NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Requests per key per minute window (requestsPerMinute): counters only, so not WAL-logged.
CREATE UNLOGGED TABLE key_request_windows (
  api_key_id text COLLATE "C" NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (api_key_id, window_start)
);

-- A billing threshold reached, once per scope (account or key), period and threshold.
CREATE TABLE billing_alerts (
  scope_id text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  threshold integer NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (scope_id, period, threshold)
);

-- The UTC month a task settled in (null while pending; a settled task's updated_at never changes
-- again), indexed per account with the charge: a budget alert sums one account's month from the
-- index alone, and usage reads only the months its range covers. Generated, so no writer sets it.
ALTER TABLE tasks ADD COLUMN settled_month text COLLATE "C" GENERATED ALWAYS AS (CASE WHEN status <> 'pending' THEN left(updated_at, 7) END) STORED;
CREATE INDEX tasks_settled_month ON tasks (account_id, settled_month) INCLUDE (cost) WHERE settled_month IS NOT NULL;
`,
  },
  {
    version: 4,
    name: 'settlements applied to their account later',
    // A settlement's money (its task's reserve released, its charge) waits here until a writer
    // holding the account row applies it (unapplied.ts): settlements never wait for that row.
    sql: `
CREATE TABLE unapplied_settlements (
  task_id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C",
  periods text[] COLLATE "C" NOT NULL,
  released bigint NOT NULL,
  charged bigint NOT NULL,
  at text NOT NULL
);
CREATE INDEX unapplied_settlements_account ON unapplied_settlements (account_id);
CREATE INDEX unapplied_settlements_key ON unapplied_settlements (api_key_id) WHERE api_key_id IS NOT NULL;
`,
  },
  {
    version: 5,
    name: 'console sessions',
    // Web console sign-in links and sessions, found by the hash of their secret. used_at makes a
    // link single-use: the UPDATE that sets it is the one step that decides between two visits.
    sql: `
CREATE TABLE console_sessions (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  hash text COLLATE "C" NOT NULL UNIQUE,
  kind text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  used_at text COLLATE "C",
  revoked_at text COLLATE "C",
  doc text NOT NULL
);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
`,
  },
  {
    version: 6,
    name: 'deliveries by event',
    // A task's event and every delivery of it (the console's task inspector): the event id in a
    // column of its own, written with each delivery, indexed. Rows already there get it from their
    // doc by a text match, never by a json cast: a doc may hold a NUL escape or a lone surrogate
    // (a URL can), which json and jsonb both refuse. The key comes first in the doc and a value
    // inside a string has its quotes escaped, so the first match is the key's.
    sql: `
ALTER TABLE deliveries ADD COLUMN event_id text COLLATE "C";
UPDATE deliveries SET event_id = substring(doc from '"eventId":"([^"\\\\]*)"');
CREATE INDEX deliveries_event ON deliveries (event_id);
`,
  },
  {
    version: 7,
    name: 'who runs next',
    // Fair share (docs/scheduling.md): each pending task carries its lane, its priority and its
    // start tag (start-time fair queueing: the later of the lane's virtual time and the account's
    // last finish tag in that lane), given at create; a claim takes a lane's tasks by
    // (priority, tag, age) from one index. Deadlines are found by their own index. Tasks created
    // before this migration have no lane and are claimed oldest first, as before.
    sql: `
ALTER TABLE accounts ADD COLUMN weight integer NOT NULL DEFAULT 1;
ALTER TABLE tasks ADD COLUMN lane text COLLATE "C", ADD COLUMN priority smallint NOT NULL DEFAULT 0,
  ADD COLUMN vstart double precision NOT NULL DEFAULT 0, ADD COLUMN deadline_at timestamptz;
CREATE INDEX tasks_queue ON tasks (lane, priority DESC, vstart, seq) WHERE status = 'pending';
CREATE INDEX tasks_unlaned ON tasks (seq) WHERE status = 'pending' AND lane IS NULL;
CREATE INDEX tasks_deadline ON tasks (deadline_at) WHERE status = 'pending' AND deadline_at IS NOT NULL;
CREATE INDEX tasks_key_leased ON tasks (api_key_id) WHERE status = 'pending' AND lease_owner IS NOT NULL;
CREATE TABLE lane_clocks (
  lane text COLLATE "C" PRIMARY KEY,
  vtime double precision NOT NULL DEFAULT 0
);
CREATE TABLE fair_tags (
  account_id text COLLATE "C" NOT NULL,
  lane text COLLATE "C" NOT NULL,
  finish double precision NOT NULL,
  PRIMARY KEY (account_id, lane)
);
CREATE TABLE lane_pauses (
  lane text COLLATE "C" PRIMARY KEY,
  paused_at text NOT NULL
);
CREATE TABLE lane_workers (
  worker text COLLATE "C" NOT NULL,
  lane text COLLATE "C" NOT NULL,
  running integer NOT NULL,
  capacity integer NOT NULL,
  queued_accounts text NOT NULL DEFAULT '',
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (worker, lane)
);
`,
  },
  {
    version: 8,
    name: 'data that can be deleted',
    // docs/data-lifecycle.md. A task whose data is removed keeps its row, scrubbed, with
    // data_removed_at set; retention finds settled tasks per account by settlement time (a settled
    // task's updated_at, compared in byte order), then id, as the file store orders them. Each item row carries the bytes of its files (an
    // account's stored bytes). Events, deliveries and console sessions get their account in a
    // column, so an erase deletes them by account: rows already there take it from their task, or
    // from their doc by a text match (see migration 6: a doc may hold what json refuses; the key
    // comes before any nested object in these docs).
    sql: `
ALTER TABLE accounts ADD COLUMN removed_charges bigint NOT NULL DEFAULT 0, ADD COLUMN retention text,
  ADD COLUMN erasing_since text, ADD COLUMN erased_at text;

ALTER TABLE tasks ADD COLUMN data_removed_at text;
CREATE INDEX tasks_settled_at ON tasks (account_id, (updated_at COLLATE "C"), id) WHERE status <> 'pending';
CREATE INDEX tasks_settled_with_data ON tasks (account_id, (updated_at COLLATE "C"), id) WHERE status <> 'pending' AND data_removed_at IS NULL;
ALTER TABLE task_items ADD COLUMN bytes bigint NOT NULL DEFAULT 0;

CREATE TABLE uploads (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('imgtask_order'),
  account_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C",
  file_name text COLLATE "C" NOT NULL,
  bytes bigint NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  deleted_at text
);
CREATE INDEX uploads_seq ON uploads (seq);
CREATE INDEX uploads_account ON uploads (account_id, created_at, id);

ALTER TABLE deliveries ADD COLUMN account_id text COLLATE "C";
UPDATE deliveries SET account_id = substring(doc from '"accountId":"([^"\\\\]*)"');
CREATE INDEX deliveries_account ON deliveries (account_id, id);
CREATE INDEX deliveries_settled ON deliveries ((updated_at COLLATE "C"), id) WHERE status <> 'pending';

ALTER TABLE events ADD COLUMN account_id text COLLATE "C";
UPDATE events e SET account_id = coalesce((SELECT t.account_id FROM tasks t WHERE t.id = e.task_id), substring(e.doc from '"accountId":"([^"\\\\]*)"'));
CREATE INDEX events_account ON events (account_id);

ALTER TABLE console_sessions ADD COLUMN account_id text COLLATE "C";
UPDATE console_sessions SET account_id = substring(doc from '"accountId":"([^"\\\\]*)"');
CREATE INDEX console_sessions_account ON console_sessions (account_id);
`,
  },
];

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
