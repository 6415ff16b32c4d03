import { access } from 'node:fs/promises';
import type { Config } from '../config/schema.js';
import { AppError } from '../domain/errors.js';
import { checkLedger, type LedgerReport } from '../services/doctor.js';
import { checkDump, type DumpCounts, type DumpRecord, readDump, writeDump } from '../store/dump.js';
import { lockHolder } from '../store/file/lock.js';
import type { Store } from '../store/store-contract.js';
import { dataDirLayout } from './data-dir.js';
import { openStore, redactUrl } from './store-backend.js';

/**
 * `imgtask store export|import`: moves a store between backends through a dump file (see
 * store/dump.ts). The stores own their formats; this only opens the configured one and streams.
 */

export interface ExportOutcome {
  file: string;
  from: 'file' | 'postgres';
  counts: DumpCounts;
}

export interface ImportOutcome {
  file: string;
  into: string;
  counts: DumpCounts;
  /** The ledger check run on the store just loaded. */
  doctor: LedgerReport;
  notes: string[];
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Where the configured store is, as it may be shown. */
const describeStore = (config: Config, dataDir: string): string =>
  config.store.driver === 'file'
    ? `the file store in ${dataDirLayout(dataDir).store}`
    : `the database ${redactUrl(config.store.postgres.url ?? '')}`;

/**
 * The configured store, opened for an export or an import. The file store must not be held by a
 * running server (its records would change under the export, and an import needs its lock).
 */
async function openForTransfer(config: Config, dataDir: string, what: 'export' | 'import'): Promise<Store> {
  const layout = dataDirLayout(dataDir);
  if (config.store.driver === 'file') {
    const holder = await lockHolder(`${layout.store}/LOCK`);
    if (holder !== null)
      throw new Error(`process ${holder} holds the data dir ${dataDir}: stop the server before a store ${what}`);
  }
  return openStore(config, { dir: layout.store });
}

export async function exportStore(
  config: Config,
  dataDir: string,
  file: string,
  now = () => new Date(),
): Promise<ExportOutcome> {
  if (await exists(file))
    throw new AppError('VALIDATION_ERROR', `${file} already exists: remove it or name another file`);
  const store = await openForTransfer(config, dataDir, 'export');
  try {
    const counts = await writeDump(file, store.records(), {
      from: config.store.driver,
      exportedAt: now().toISOString(),
    });
    return { file, from: config.store.driver, counts };
  } finally {
    await store.close();
  }
}

/** The dump's records, read twice: once through all its checks, then to load, so a bad file changes nothing. */
async function* checkedRecords(file: string): AsyncGenerator<DumpRecord> {
  await checkDump(file);
  yield* readDump(file);
}

export async function importStore(config: Config, dataDir: string, file: string): Promise<ImportOutcome> {
  // Refuse a missing or foreign file before opening anything.
  if (!(await exists(file))) throw new AppError('VALIDATION_ERROR', `${file} does not exist`);
  const store = await openForTransfer(config, dataDir, 'import');
  try {
    const counts = await store.load(checkedRecords(file));
    const doctor = await checkLedger(store);
    const notes: string[] = [];
    const sealed = counts.secret + counts.webhook + counts.destination;
    const secretsKey = dataDirLayout(dataDir).secretsKey;
    if (sealed > 0 && !(await exists(secretsKey))) {
      notes.push(
        `${secretsKey} is missing: copy keys/ from the source data dir, or the ${sealed} sealed secret(s) cannot be opened`,
      );
    }
    return { file, into: describeStore(config, dataDir), counts, doctor, notes };
  } finally {
    await store.close();
  }
}
