import type { Config } from '../config/schema.js';
import type { StorageFs } from '../store/durable-fs.js';
import { JsonStore } from '../store/file/json-store.js';
import type { Store } from '../store/store-contract.js';

/**
 * The store backend chosen by `store.driver`: the journaled files of the data dir, or a
 * PostgreSQL database. The PostgreSQL code (and `pg`) loads only when that driver is chosen.
 */

/** A database URL as it may be shown: its password (in the authority or as ?password=) replaced by ***. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return url.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@').replace(/([?&]password=)[^&]*/gi, '$1***');
  }
}

/**
 * The secrets of a database URL, as they could appear in a message: the password, raw and decoded, and the URL itself.
 */
function secretsOf(url: string): string[] {
  const out = [url];
  try {
    const parsed = new URL(url);
    for (const value of [parsed.password, parsed.searchParams.get('password') ?? '']) {
      if (!value) continue;
      out.push(value);
      try {
        out.push(decodeURIComponent(value));
      } catch {}
    }
  } catch {}
  return out.filter((value) => value.length > 0).sort((a, b) => b.length - a.length);
}

/** An error about the database, with the URL redacted and the password removed wherever it appears. */
function databaseError(err: unknown, url: string): Error {
  const e = err as Error & { code?: string };
  let message = e?.message ?? '';
  if (!message && err instanceof AggregateError) message = err.errors.map((inner: Error) => inner.message).join('; ');
  if (!message) message = e?.code ?? String(err);
  const reached = /^(E[A-Z]+|ENOTFOUND|EAI_AGAIN)$/.test(e?.code ?? '') || err instanceof AggregateError;
  for (const secret of secretsOf(url)) message = message.split(secret).join(secret === url ? redactUrl(url) : '***');
  return new Error(reached ? `cannot reach the database ${redactUrl(url)}: ${message}` : message);
}

function databaseUrl(config: Config): string {
  const url = config.store.postgres.url;
  // The config loader refuses driver "postgres" without a URL; this guards other callers.
  if (!url)
    throw new Error(
      'store.driver is "postgres" but no database is named: set store.postgres.url or IMGTASK_DATABASE_URL',
    );
  return url;
}

export interface OpenStoreOptions {
  /** The journaled store's folder (file driver). */
  dir: string;
  log?: (message: string) => void;
  onFatal?: (err: Error) => void;
  /** File store: called each time writes are taken again after a refusal for lack of space. */
  onResume?: () => void;
  /** File store: where its files are written (tests fail writes through it). */
  fs?: StorageFs;
}

/**
 * Opens the configured store. PostgreSQL: the schema must be the code's (migrations are applied
 * by `imgtask migrate`, never at start): an older one is refused with that hint, a newer one too.
 */
export async function openStore(config: Config, options: OpenStoreOptions): Promise<Store> {
  if (config.store.driver === 'file') {
    return JsonStore.open({
      dir: options.dir,
      snapshotEveryBytes: config.store.snapshotEveryBytes,
      verifyPayloads: config.store.verifyPayloads,
      log: options.log,
      onFatal: options.onFatal,
      onResume: options.onResume,
      fs: options.fs,
    });
  }
  const url = databaseUrl(config);
  const { PgStore, schemaVersion } = await import('../store/postgres/postgres-store.js');
  let version: { current: number; latest: number };
  try {
    version = await schemaVersion(url);
  } catch (err) {
    throw databaseError(err, url);
  }
  if (version.current < version.latest) {
    throw new Error(
      `the database ${redactUrl(url)} is at schema version ${version.current}, this imgtask needs ${version.latest}: run imgtask migrate`,
    );
  }
  if (version.current > version.latest) {
    throw new Error(
      `the database ${redactUrl(url)} is at schema version ${version.current}, newer than this imgtask knows (${version.latest}): run a newer imgtask`,
    );
  }
  try {
    return await PgStore.open({
      url,
      poolSize: config.store.postgres.poolSize,
      log: options.log,
      applicationName: 'imgtask',
    });
  } catch (err) {
    throw databaseError(err, url);
  }
}

export type MigrateOutcome =
  | { driver: 'file' }
  | { driver: 'postgres'; database: string; from: number; to: number; applied: string[] };

/** Applies the configured database's pending migrations; the file driver has none. */
export async function migrateStore(config: Config, log?: (message: string) => void): Promise<MigrateOutcome> {
  if (config.store.driver === 'file') return { driver: 'file' };
  const url = databaseUrl(config);
  const { migrate } = await import('../store/postgres/postgres-store.js');
  try {
    const { from, to, applied } = await migrate(url, log);
    return { driver: 'postgres', database: redactUrl(url), from, to, applied };
  } catch (err) {
    throw databaseError(err, url);
  }
}
