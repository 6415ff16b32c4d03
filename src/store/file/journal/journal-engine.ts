import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { isOutOfSpace } from '../../../domain/storage-full.js';
import { nodeStorageFs, type StorageFs } from '../../durable-fs.js';
import type { JournalOp, JournalOps } from '../journal-ops.js';
import { acquireLock } from '../lock.js';
import { applyOp, type State } from '../state.js';
import { writeCheckpoint } from './checkpoint-file.js';
import { Checkpointer } from './checkpointer.js';
import { FullDiskRefusal, refusedForSpace } from './full-disk.js';
import { JournalWriter } from './journal-writer.js';
import { encodeRecordLine } from './record.js';
import { Snapshots } from './snapshots.js';
import { type Recovered, recover } from './start-up.js';
import { captureState, storePaths } from './store-files.js';
import { UndoLog } from './undo-log.js';

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
  /**
   * How often, while writes are refused for lack of space, a probe write checks whether space is back. @default 1000
   */
  retryEveryMs?: number;
  /** Where the store's files are written; Node's own unless a test fails writes on purpose. */
  fs?: StorageFs;
}

class StoreClosedError extends Error {}

type EngineOptions = Required<Omit<JournalEngineOptions, 'onFatal' | 'onResume'>> &
  Pick<JournalEngineOptions, 'onFatal' | 'onResume'>;

/**
 * The journaled store's engine: in-memory state, an append-only checksummed journal with
 * group commit, and snapshots through lowdb (snapshots.ts). Start-up = snapshot + replay
 * (start-up.ts); a full disk refuses writes until space is back (full-disk.ts).
 *
 * Files in `dir`: LOCK, journal.jsonl, journal.old.jsonl (only between a journal cut and
 * the snapshot that makes it redundant), snapshot.json, journal.checkpoint (the last seq
 * known durable, so that start-up can tell when acknowledged records are gone).
 */
export class JournalEngine {
  readonly state: State;
  private seq: number;
  private closed = false;
  private fatalReported = false;
  /** Set while `bulkLoad` runs, and for good if it failed: memory may then hold what disk does not. */
  private loadFailure: Error | null = null;
  /** What commits not yet durable changed in memory, to undo those whose record cannot be written. */
  private readonly undo = new UndoLog();
  private readonly fullDisk: FullDiskRefusal;
  private readonly snapshots: Snapshots;

  private constructor(
    private readonly options: EngineOptions,
    recovered: Recovered,
    private readonly writer: JournalWriter,
    private readonly checkpointer: Checkpointer,
    private readonly releaseLock: () => Promise<void>,
  ) {
    this.state = recovered.state;
    this.seq = recovered.seq;
    for (const collection of this.state.collections()) collection.onChange = (change) => this.undo.record(change);
    this.fullDisk = new FullDiskRefusal({
      dir: options.dir,
      fs: options.fs,
      retryEveryMs: options.retryEveryMs,
      log: options.log,
      resume: () => writer.resume(),
      onFatal: (err) => this.reportFatal(err),
      onResume: options.onResume,
    });
    this.snapshots = new Snapshots({
      dir: options.dir,
      snapshotDb: recovered.snapshotDb,
      writer,
      capture: () => captureState(this.state, this.seq),
      refused: () => this.fullDisk.refused,
      log: options.log,
    });
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
      const recovered = await recover(opts);
      const { checkpoint, seq } = recovered;
      const checkpointer = new Checkpointer(paths.checkpoint, seq, opts.checkpointEveryMs, opts.log, opts.fs);
      // The writer's refusals reach the engine built right after it (no record is appended before).
      let engine: JournalEngine | undefined;
      // The writer syncs the journal on open, so every record replayed is durable from here on.
      const writer = await JournalWriter.open(paths.journal, paths.old, {
        fs: opts.fs,
        onRefused: (lines, err) => engine?.refuse(lines, err),
      });
      engine = new JournalEngine(opts, recovered, writer, checkpointer, releaseLock);
      if (checkpoint?.seq !== seq) {
        if (!checkpoint && seq > 0)
          opts.log(
            `store: no journal.checkpoint (a store written before there was one); starting as before and writing one at seq ${seq}`,
          );
        await writeCheckpoint(paths.checkpoint, { seq }, opts.fs).catch(async (err: Error) => {
          await writer.close();
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
    return this.fullDisk.reason();
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
    if (this.fullDisk.refused) return Promise.reject(refusedForSpace());
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
    if (this.snapshots.due(this.writer.bytes, this.options.snapshotEveryBytes)) void this.snapshot();
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
    return this.snapshots.take();
  }

  /**
   * Rewrites the store's files so that what is no longer in the state is in no file: a snapshot
   * of the state as of this call, taken at a journal cut (an earlier snapshot still under way is
   * waited for first: it may predate the call), then the old journal deleted as usual, and the
   * temp files of interrupted writes too. The snapshot is written in slices while writes go on;
   * they land in the new journal, after its seq. Throws when the snapshot cannot be written (the
   * removed data may then still be on disk).
   */
  compact(): Promise<void> {
    return this.snapshots.compact(this.seq, () => this.writeFailure());
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
    if (this.fullDisk.refused) throw refusedForSpace();
    if (this.loadFailure) throw this.loadFailure;
    this.loadFailure = new Error('an import is in progress');
    try {
      if (this.snapshots.running) await this.snapshots.running;
      if (this.snapshots.failure) throw this.snapshots.failure;
      await fill(this.state);
      for (const collection of this.state.collections()) collection.loaded();
      await this.snapshot();
      if (this.snapshots.failure) throw this.snapshots.failure;
    } catch (err) {
      this.loadFailure = new Error(`an import failed, refusing further writes: ${(err as Error).message}`);
      throw err;
    }
    this.loadFailure = null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fullDisk.stop();
    await this.writer.drain();
    if (this.snapshots.running) await this.snapshots.running;
    if (this.options.snapshotOnClose && this.writer.bytes > 0 && !this.writer.failed && !this.fullDisk.refused)
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
    this.fullDisk.refuse(lines, err);
  }

  private reportFatal(err: Error): void {
    if (this.fatalReported) return;
    this.fatalReported = true;
    this.options.log(`store: journal write failed, refusing further writes: ${err.message}`);
    this.options.onFatal?.(err);
  }
}

/** A payload whose JSON reads back as something else would make replay differ from live state. */
function assertJsonExact(op: string, payload: unknown, json: string): void {
  if (!isDeepStrictEqual(JSON.parse(json), payload))
    throw new Error(
      `store: the ${op} payload does not survive JSON unchanged (undefined, NaN, a Date or a class instance in it)`,
    );
}
