import { access, mkdir, open, readdir, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Low } from 'lowdb';
import { isOutOfSpace, storageFull } from '../../domain/storage-full.js';
import { fsyncDir, nodeStorageFs, probeWrite, type StorageFs, TEMP_SUFFIX } from '../durable-fs.js';
import { removeTempFiles } from '../temp-files.js';
import { readCheckpoint, writeCheckpoint } from './journal/checkpoint-file.js';
import { Checkpointer } from './journal/checkpointer.js';
import { describeTornTail, readJournal, StoreCorruptError } from './journal/journal-reader.js';
import { JournalWriter } from './journal/journal-writer.js';
import { assertNoRecordsMissing } from './journal/missing-records.js';
import { encodeRecordLine, type JournalRecord } from './journal/record.js';
import { UndoLog } from './journal/undo-log.js';
import type { JournalOp, JournalOps } from './journal-ops.js';
import { acquireLock } from './lock.js';
import { type SnapshotData, SnapshotFile } from './snapshot-file.js';
import { applyOp, State } from './state.js';

export interface JournalEngineOptions {
  /** Folder of the store's files; created 0700 if missing. */
  dir: string;
  /** Write a snapshot and cut the journal once it passes this many bytes. @default 67108864 */
  snapshotEveryBytes?: number;
  /** Write a snapshot on close when the journal holds anything, so the next start is fast. @default true */
  snapshotOnClose?: boolean;
  /**
   * How often, at most, journal.checkpoint is brought up to the last durable record. Start-up
   * refuses when records older than the checkpoint are gone; a shorter interval narrows the
   * window of loss it cannot see, at one small fsynced file write per interval. @default 1000
   */
  checkpointEveryMs?: number;
  /**
   * Check that every payload survives JSON unchanged before applying it (a development aid,
   * on in the test suite): live state is built from the payload object itself, replay from its
   * JSON, so a payload holding `undefined`, NaN or a Date would make the two differ. @default false
   */
  verifyPayloads?: boolean;
  log?: (message: string) => void;
  /**
   * Called once if the journal cannot be written for a reason other than a lack of space (an
   * I/O error): memory is then ahead of disk and the process must stop.
   */
  onFatal?: (err: Error) => void;
  /** Called each time writes are taken again after a refusal for lack of space. */
  onResume?: () => void;
  /** How often, while writes are refused for lack of space, a probe write checks whether space is back. @default 1000 */
  retryEveryMs?: number;
  /** Where the store's files are written; Node's own unless a test fails writes on purpose. */
  fs?: StorageFs;
}

/** The probe that decides whether writes resume: room for this much, written and synced. */
const PROBE_BYTES = 64 * 1024;

class StoreClosedError extends Error {}

const fileExists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The journaled store's engine: in-memory state, an append-only checksummed journal with
 * group commit, and snapshots through lowdb. Start-up = snapshot + replay.
 *
 * Files in `dir`: LOCK, journal.jsonl, journal.old.jsonl (only between a journal cut and
 * the snapshot that makes it redundant), snapshot.json, journal.checkpoint (the last seq
 * known durable, so that start-up can tell when acknowledged records are gone).
 */
export class JournalEngine {
  readonly state: State;
  private seq: number;
  private snapshotting: Promise<void> | null = null;
  /** The seq of the last snapshot written at a journal cut: every record up to it is in no file but the snapshot. */
  private cutSnapshotSeq = 0;
  private snapshotFailure: Error | null = null;
  /** When a snapshot last tried to fold the journals left by a snapshot that failed for lack of space. */
  private lastFoldAt = 0;
  private closed = false;
  private fatalReported = false;
  /** Set while `bulkLoad` runs, and for good if it failed: memory may then hold what disk does not. */
  private loadFailure: Error | null = null;
  /** What commits not yet durable changed in memory, to undo those whose record cannot be written. */
  private readonly undo = new UndoLog();
  /** Set while writes are refused for lack of space: since when, and the error that started it. */
  private refusal: { since: Date; error: Error } | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private writer!: JournalWriter;

  private constructor(
    private readonly options: Required<Omit<JournalEngineOptions, 'onFatal' | 'onResume'>> &
      Pick<JournalEngineOptions, 'onFatal' | 'onResume'>,
    state: State,
    seq: number,
    private readonly snapshotDb: Low<SnapshotData>,
    private readonly checkpointer: Checkpointer,
    private readonly releaseLock: () => Promise<void>,
  ) {
    this.state = state;
    this.seq = seq;
    for (const collection of state.collections()) collection.onChange = (change) => this.undo.record(change);
  }

  static async open(options: JournalEngineOptions): Promise<JournalEngine> {
    const opts = {
      snapshotEveryBytes: 64 * 1024 * 1024,
      snapshotOnClose: true,
      checkpointEveryMs: 1000,
      verifyPayloads: false,
      log: () => undefined,
      retryEveryMs: 1000,
      fs: nodeStorageFs,
      ...options,
    };
    await mkdir(opts.dir, { recursive: true, mode: 0o700 });
    const releaseLock = await acquireLock(join(opts.dir, 'LOCK'));
    try {
      const paths = storePaths(opts.dir);
      // Temp files of writes a crash or a full disk interrupted: under the lock, none is in use.
      const removed = await removeTempFiles(opts.dir, 0);
      if (removed > 0) opts.log(`store: removed ${removed} temp file(s) left by an interrupted write`);
      const checkpoint = await readCheckpoint(paths.checkpoint);
      const hasSnapshot = await fileExists(paths.snapshot);
      const state = new State();
      const snapshotDb = new Low<SnapshotData>(new SnapshotFile(paths.snapshot, opts.fs), { seq: 0, collections: {} });
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
        dir: opts.dir,
        snapshotSeq: hasSnapshot ? snapshotSeq : null,
        old,
        journal,
        lastSeq: seq,
      });
      if (journal?.tornTail) {
        opts.log(`store: journal.jsonl: dropped ${describeTornTail(journal.tornTail, journal.lastSeq)}`);
        await truncateDurably(paths.journal, journal.goodBytes);
      }

      if (hadOld) {
        // A cut whose snapshot never landed: fold both journals into a snapshot now,
        // before any new write, so the next cut never overwrites journal.old.jsonl.
        await snapshotDb.adapter.write(captureState(state, seq));
        await unlink(paths.old);
        if (hasJournal) await truncateDurably(paths.journal, 0);
        await fsyncDir(opts.dir);
      }

      const checkpointer = new Checkpointer(paths.checkpoint, seq, opts.checkpointEveryMs, opts.log, opts.fs);
      const engine = new JournalEngine(opts, state, seq, snapshotDb, checkpointer, releaseLock);
      // The writer syncs the journal on open, so every record replayed is durable from here on.
      engine.writer = await JournalWriter.open(paths.journal, paths.old, {
        fs: opts.fs,
        onRefused: (lines, err) => engine.refuse(lines, err),
      });
      if (checkpoint?.seq !== seq) {
        if (!checkpoint && seq > 0)
          opts.log(
            `store: no journal.checkpoint (a store written before there was one); starting as before and writing one at seq ${seq}`,
          );
        await writeCheckpoint(paths.checkpoint, { seq }, opts.fs).catch(async (err: Error) => {
          await engine.writer.close();
          throw err;
        });
      }
      return engine;
    } catch (err) {
      await releaseLock();
      throw err;
    }
  }

  /** Why a commit would be refused now; null while commits are taken. */
  writeFailure(): string | null {
    if (this.closed) return 'the store is closed';
    if (this.loadFailure) return this.loadFailure.message;
    const failed = this.writer.failed;
    if (failed) return `a journal write failed: ${failed.message}`;
    if (this.refusal)
      return `out of space: writes are refused since ${this.refusal.since.toISOString()} (${errorCode(this.refusal.error)}); they resume by themselves once space is freed`;
    return null;
  }

  /** Last sequence number applied. */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Applies an op to the state now (so checks made in the same tick see it) and resolves
   * once its journal record is durable. The payload is serialised once, for the journal; the
   * state keeps the payload object itself, so it must be plain JSON data that nobody mutates
   * afterwards (records are never changed in place; `verifyPayloads` checks the first part).
   */
  commit<Op extends JournalOp>(op: Op, payload: JournalOps[Op]): Promise<void> {
    if (this.closed) return Promise.reject(new StoreClosedError('the store is closed'));
    if (this.writer.failed) return Promise.reject(this.writer.failed);
    if (this.refusal) return Promise.reject(refusedForSpace());
    if (this.loadFailure) return Promise.reject(this.loadFailure);
    const json = JSON.stringify(payload);
    if (this.options.verifyPayloads) assertJsonExact(op, payload, json);
    const seq = this.seq + 1;
    this.undo.begin(seq);
    try {
      applyOp(this.state, op, payload);
    } catch (err) {
      this.undo.abort();
      throw err;
    }
    this.undo.end();
    this.seq = seq;
    const written = this.writer.append(encodeRecordLine(seq, Date.now(), op, json));
    if (
      this.writer.bytes >= this.options.snapshotEveryBytes &&
      (!this.snapshotFailure || Date.now() - this.lastFoldAt >= FOLD_RETRY_MS)
    )
      void this.snapshot();
    return written.then(
      () => {
        this.undo.release(seq);
        this.checkpointer.noteDurable(seq);
      },
      (err: Error) => {
        // Its change was undone (`refuse`) before this runs: the caller hears 507, memory matches disk.
        if (isOutOfSpace(err)) throw refusedForSpace();
        this.reportFatal(err);
        throw err;
      },
    );
  }

  /**
   * Writes a snapshot of the state as of now and cuts the journal. The state is captured
   * and the journal cut in the same tick; serialising happens while writes go on.
   */
  snapshot(): Promise<void> {
    if (this.snapshotting) return this.snapshotting;
    if (this.snapshotFailure) return this.foldAfterSpaceFailure();
    if (this.refusal) return Promise.resolve();
    const data = captureState(this.state, this.seq);
    const cut = this.writer.rotate();
    const paths = storePaths(this.options.dir);
    this.snapshotting = (async () => {
      try {
        await cut;
      } catch (err) {
        // Refused or failed for lack of space: no file changed, and a later snapshot may cut.
        if (isOutOfSpace(err)) return;
        throw err;
      }
      await this.snapshotDb.adapter.write(data);
      await unlink(paths.old);
      await fsyncDir(this.options.dir);
      this.cutSnapshotSeq = data.seq;
    })()
      .catch((err: Error) => {
        // The journals still hold everything; the next start folds them into a snapshot. No
        // other cut may happen meanwhile: it would rename the new journal over the old one.
        this.snapshotFailure = err;
        this.lastFoldAt = Date.now();
        this.options.log(`store: snapshot failed, journal kept (${err.message})`);
      })
      .finally(() => {
        this.snapshotting = null;
      });
    return this.snapshotting;
  }

  /**
   * Rewrites the store's files so that what is no longer in the state is in no file: a snapshot
   * of the state as of this call, taken at a journal cut (an earlier snapshot still under way is
   * waited for first: it may predate the call), then the old journal deleted as usual, and the
   * temp files of interrupted writes too. The snapshot is written in slices while writes go on;
   * they land in the new journal, after its seq. Throws when the snapshot cannot be written (the
   * removed data may then still be on disk).
   */
  async compact(): Promise<void> {
    const target = this.seq;
    // A snapshot after a space failure folds without a cut: a second round then cuts.
    for (let round = 0; round < 3 && this.cutSnapshotSeq < target; round++) {
      while (this.snapshotting) await this.snapshotting;
      const failure =
        this.writeFailure() ??
        (this.snapshotFailure && !isOutOfSpace(this.snapshotFailure)
          ? `a snapshot failed: ${this.snapshotFailure.message}`
          : null);
      if (failure) throw new Error(`store: cannot compact: ${failure}`);
      await this.snapshot();
    }
    if (this.cutSnapshotSeq < target)
      throw new Error(
        `store: cannot compact: no snapshot could be written${this.snapshotFailure ? ` (${this.snapshotFailure.message})` : ''}`,
      );
    await removeStrayTempFiles(this.options.dir);
  }

  /**
   * A snapshot that failed for lack of space left journal.old.jsonl beside journal.jsonl. Once
   * writes are taken (past the size, at most once a minute), this writes a snapshot of the state without
   * another cut, once every record it holds is durable, then deletes journal.old.jsonl: the
   * records journal.jsonl still holds up to the snapshot's seq are skipped at start-up. Then
   * snapshots cut again as usual. Any other snapshot failure waits for the next start.
   */
  private foldAfterSpaceFailure(): Promise<void> {
    if (!isOutOfSpace(this.snapshotFailure) || this.refusal) return Promise.resolve();
    this.lastFoldAt = Date.now();
    const data = captureState(this.state, this.seq);
    const durable = this.writer.barrier();
    const paths = storePaths(this.options.dir);
    this.snapshotting = (async () => {
      await durable;
      await this.snapshotDb.adapter.write(data);
      await unlink(paths.old);
      await fsyncDir(this.options.dir);
      this.snapshotFailure = null;
      this.options.log('store: snapshot written after the earlier one failed for lack of space');
    })()
      .catch((err: Error) =>
        this.options.log(`store: snapshot still not written (${err.message}); the journals keep everything`),
      )
      .finally(() => {
        this.snapshotting = null;
      });
    return this.snapshotting;
  }

  /**
   * Fills the store in bulk (an import): `fill` puts records into the state through the
   * collections' start-up path (`Collection.load`), then one snapshot makes them all durable at
   * once; the journal gets no record of them. Commits are refused meanwhile. Should filling or the
   * snapshot fail, disk keeps what it had, and the engine refuses every later write (memory may
   * hold records disk does not).
   */
  async bulkLoad(fill: (state: State) => Promise<void>): Promise<void> {
    if (this.closed) throw new StoreClosedError('the store is closed');
    if (this.writer.failed) throw this.writer.failed;
    if (this.refusal) throw refusedForSpace();
    if (this.loadFailure) throw this.loadFailure;
    this.loadFailure = new Error('an import is in progress');
    try {
      if (this.snapshotting) await this.snapshotting;
      if (this.snapshotFailure) throw this.snapshotFailure;
      await fill(this.state);
      for (const collection of this.state.collections()) collection.loaded();
      await this.snapshot();
      if (this.snapshotFailure) throw this.snapshotFailure;
    } catch (err) {
      this.loadFailure = new Error(`an import failed, refusing further writes: ${(err as Error).message}`);
      throw err;
    }
    this.loadFailure = null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    await this.probing;
    await this.writer.drain();
    if (this.snapshotting) await this.snapshotting;
    if (this.options.snapshotOnClose && this.writer.bytes > 0 && !this.writer.failed && !this.refusal)
      await this.snapshot();
    await this.writer.close();
    await this.checkpointer.close();
    await this.releaseLock();
  }

  /**
   * The writer dropped the last `lines` records for lack of space (none was durable, and no
   * commit ran since): their changes are undone, newest first, so that memory holds what the
   * disk holds and what a restart would load; their callers hear 507 STORAGE_FULL. Writes are
   * then refused until a probe write succeeds.
   */
  private refuse(lines: number, err: Error): void {
    const from = this.seq - lines + 1;
    this.undo.undoFrom(from);
    this.seq = from - 1;
    this.refusal = { since: new Date(), error: err };
    this.options.log(
      `store: a journal write failed for lack of space (${errorCode(err)}): ${lines} change(s) undone and answered 507; writes are refused until space is freed (checked every ${this.options.retryEveryMs} ms)`,
    );
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.probeTimer || this.closed) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.probing = this.probe().finally(() => {
        this.probing = null;
      });
    }, this.options.retryEveryMs);
    // Waiting for space must not keep a process alive.
    this.probeTimer.unref();
  }

  /** Writes resume once a probe write fits and the journal is cut back to its last durable record. */
  private async probe(): Promise<void> {
    if (this.closed || !this.refusal) return;
    try {
      await probeWrite(this.options.dir, PROBE_BYTES, this.options.fs);
      await this.writer.resume();
    } catch (err) {
      if (!isOutOfSpace(err)) {
        // Not a lack of space: the journal may still hold refused records; stop as on any I/O failure.
        this.reportFatal(err as Error);
        return;
      }
      this.scheduleProbe();
      return;
    }
    if (this.closed) return;
    const since = this.refusal.since;
    this.refusal = null;
    this.options.log(
      `store: space is back: writes are taken again, ${Math.round((Date.now() - since.getTime()) / 1000)} s after the disk filled`,
    );
    this.options.onResume?.();
  }

  private reportFatal(err: Error): void {
    if (this.fatalReported) return;
    this.fatalReported = true;
    this.options.log(`store: journal write failed, refusing further writes: ${err.message}`);
    this.options.onFatal?.(err);
  }
}

/** How long a snapshot waits before trying again to fold journals a space failure left. */
const FOLD_RETRY_MS = 60_000;

const errorCode = (err: Error): string => (err as NodeJS.ErrnoException).code ?? err.message;

/** What a commit refused for lack of space answers: nothing was written. */
const refusedForSpace = () =>
  storageFull("the server's storage is full: nothing was written; retry once space is freed");

/** A payload whose JSON reads back as something else would make replay differ from live state. */
function assertJsonExact(op: string, payload: unknown, json: string): void {
  if (!isDeepStrictEqual(JSON.parse(json), payload))
    throw new Error(
      `store: the ${op} payload does not survive JSON unchanged (undefined, NaN, a Date or a class instance in it)`,
    );
}

/**
 * Temp files of writes that never finished (a snapshot cut short by a full disk leaves none, a
 * killed process may). The checkpoint's is left: it may be under way now, and holds only a seq.
 */
async function removeStrayTempFiles(dir: string): Promise<void> {
  const checkpointTemp = `${basename(storePaths(dir).checkpoint)}${TEMP_SUFFIX}`;
  for (const name of await readdir(dir)) {
    if (name.endsWith(TEMP_SUFFIX) && name !== checkpointTemp) await unlink(join(dir, name)).catch(() => undefined);
  }
}

const storePaths = (dir: string) => ({
  journal: join(dir, 'journal.jsonl'),
  old: join(dir, 'journal.old.jsonl'),
  snapshot: join(dir, 'snapshot.json'),
  checkpoint: join(dir, 'journal.checkpoint'),
});

function captureState(state: State, seq: number): SnapshotData {
  const collections: Record<string, Iterable<unknown>> = {};
  const counts: Record<string, number> = {};
  for (const collection of state.collections()) {
    // Records never read since start-up stay lines: written back without parsing them.
    const entries = collection.captureEntries();
    collections[collection.name] = entries;
    counts[collection.name] = entries.length;
  }
  return { seq, collections, counts };
}

/** Streams the snapshot's records straight into the empty state, through the indexes' bulk path. */
function loadCollections(state: State, data: SnapshotData): void {
  const known = new Map(state.collections().map((collection) => [collection.name, collection]));
  const collectionNamed = (name: string) => {
    const collection = known.get(name);
    if (!collection) throw new StoreCorruptError(`snapshot.json: unknown collection "${name}". Refusing to start.`);
    return collection;
  };
  data.load?.((name) => {
    const collection = collectionNamed(name);
    return {
      record: (record) => collection.load(record as { id: string }),
      line: (chunk, start, end) => collection.loadLine(chunk, start, end),
    };
  });
  for (const [name, records] of Object.entries(data.collections)) {
    const collection = collectionNamed(name);
    for (const record of records) collection.load(record as { id: string });
  }
  for (const collection of known.values()) collection.loaded();
}

async function truncateDurably(path: string, length: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
