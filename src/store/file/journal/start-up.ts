import { unlink } from 'node:fs/promises';
import { Low } from 'lowdb';
import { fsyncDir, type StorageFs } from '../../durable-fs.js';
import { removeTempFiles } from '../../temp-files.js';
import { type SnapshotData, SnapshotFile } from '../snapshot-file.js';
import { applyOp, State } from '../state.js';
import { type Checkpoint, readCheckpoint } from './checkpoint-file.js';
import { describeTornTail, readJournal, StoreCorruptError } from './journal-reader.js';
import { assertNoRecordsMissing } from './missing-records.js';
import type { JournalRecord } from './record.js';
import { captureState, fileExists, loadCollections, storePaths, truncateDurably } from './store-files.js';

/** What start-up found: the state as of `seq`, the snapshot file, and the checkpoint it read (null: none). */
export interface Recovered {
  state: State;
  seq: number;
  snapshotDb: Low<SnapshotData>;
  checkpoint: Checkpoint | null;
}

/**
 * Start-up, under the store's lock: the snapshot loaded, then the journals replayed after it. Refuses
 * (before any file changes) when records are missing; drops a torn tail; folds journals a cut left
 * without its snapshot into a snapshot now, so the next cut never overwrites journal.old.jsonl.
 */
export async function recover(options: {
  dir: string;
  fs: StorageFs;
  log: (message: string) => void;
}): Promise<Recovered> {
  const { dir, log } = options;
  const paths = storePaths(dir);
  // Temp files of writes a crash or a full disk interrupted: under the lock, none is in use.
  const removed = await removeTempFiles(dir, 0);
  if (removed > 0) log(`store: removed ${removed} temp file(s) left by an interrupted write`);
  const checkpoint = await readCheckpoint(paths.checkpoint);
  const hasSnapshot = await fileExists(paths.snapshot);
  const state = new State();
  const snapshotDb = new Low<SnapshotData>(new SnapshotFile(paths.snapshot, options.fs), { seq: 0, collections: {} });
  await snapshotDb.read();
  loadCollections(state, snapshotDb.data);
  const snapshotSeq = snapshotDb.data.seq;
  let seq = snapshotSeq;

  const replay = (file: string) => (record: JournalRecord) => {
    if (record.seq <= snapshotSeq) return;
    if (record.seq !== seq + 1) {
      throw new StoreCorruptError(
        `${file}: record seq ${record.seq} follows seq ${seq}; records are missing. Refusing to start.`,
      );
    }
    try {
      applyOp(state, record.op, record.p);
    } catch (err) {
      throw new StoreCorruptError(
        `${file}: record seq ${record.seq} (${record.op}) cannot be applied: ${(err as Error).message}`,
      );
    }
    seq = record.seq;
  };

  const hadOld = await fileExists(paths.old);
  const old = hadOld ? await readJournal(paths.old, replay('journal.old.jsonl'), { allowTornTail: false }) : null;
  const hasJournal = await fileExists(paths.journal);
  const journal = hasJournal
    ? await readJournal(paths.journal, replay('journal.jsonl'), { allowTornTail: true })
    : null;
  // Before any file changes: a refusal must leave them as they were.
  assertNoRecordsMissing(checkpoint, {
    dir,
    snapshotSeq: hasSnapshot ? snapshotSeq : null,
    old,
    journal,
    lastSeq: seq,
  });
  if (journal?.tornTail) {
    log(`store: journal.jsonl: dropped ${describeTornTail(journal.tornTail, journal.lastSeq)}`);
    await truncateDurably(paths.journal, journal.goodBytes);
  }

  if (hadOld) {
    // A cut whose snapshot never landed: fold both journals into a snapshot now,
    // before any new write, so the next cut never overwrites journal.old.jsonl.
    await snapshotDb.adapter.write(captureState(state, seq));
    await unlink(paths.old);
    if (hasJournal) await truncateDurably(paths.journal, 0);
    await fsyncDir(dir);
  }
  return { state, seq, snapshotDb, checkpoint };
}
