import { access, mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Low } from 'lowdb';
import { fsyncDir } from './durable-fs.js';
import { readCheckpoint, writeCheckpoint } from './journal/checkpoint-file.js';
import { Checkpointer } from './journal/checkpointer.js';
import { describeTornTail, readJournal, StoreCorruptError } from './journal/journal-reader.js';
import { JournalWriter } from './journal/journal-writer.js';
import { assertNoRecordsMissing } from './journal/missing-records.js';
import { encodeRecordLine, type JournalRecord } from './journal/record.js';
import { acquireLock } from './lock.js';
import type { JournalOp, JournalOps } from './records.js';
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
  /** Called once if the journal cannot be written: memory is then ahead of disk and the process must stop. */
  onFatal?: (err: Error) => void;
}

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
  private snapshotFailure: Error | null = null;
  private closed = false;
  private fatalReported = false;
  /** Set while `bulkLoad` runs, and for good if it failed: memory may then hold what disk does not. */
  private loadFailure: Error | null = null;

  private constructor(
    private readonly options: Required<Omit<JournalEngineOptions, 'onFatal'>> & Pick<JournalEngineOptions, 'onFatal'>,
    state: State,
    seq: number,
    private readonly writer: JournalWriter,
    private readonly snapshotDb: Low<SnapshotData>,
    private readonly checkpointer: Checkpointer,
    private readonly releaseLock: () => Promise<void>,
  ) {
    this.state = state;
    this.seq = seq;
  }

  static async open(options: JournalEngineOptions): Promise<JournalEngine> {
    const opts = { snapshotEveryBytes: 64 * 1024 * 1024, snapshotOnClose: true, checkpointEveryMs: 1000, verifyPayloads: false, log: () => undefined, ...options };
    await mkdir(opts.dir, { recursive: true, mode: 0o700 });
    const releaseLock = await acquireLock(join(opts.dir, 'LOCK'));
    try {
      const paths = storePaths(opts.dir);
      const checkpoint = await readCheckpoint(paths.checkpoint);
      const hasSnapshot = await fileExists(paths.snapshot);
      const state = new State();
      const snapshotDb = new Low<SnapshotData>(new SnapshotFile(paths.snapshot), { seq: 0, collections: {} });
      await snapshotDb.read();
      loadCollections(state, snapshotDb.data);
      const snapshotSeq = snapshotDb.data.seq;
      let seq = snapshotSeq;

      const replay = (file: string) => (record: JournalRecord) => {
        if (record.seq <= snapshotSeq) return;
        if (record.seq !== seq + 1) {
          throw new StoreCorruptError(`${file}: record seq ${record.seq} follows seq ${seq}; records are missing. Refusing to start.`);
        }
        try {
          applyOp(state, record.op, record.p);
        } catch (err) {
          throw new StoreCorruptError(`${file}: record seq ${record.seq} (${record.op}) cannot be applied: ${(err as Error).message}`);
        }
        seq = record.seq;
      };

      const hadOld = await fileExists(paths.old);
      const old = hadOld ? await readJournal(paths.old, replay('journal.old.jsonl'), { allowTornTail: false }) : null;
      const hasJournal = await fileExists(paths.journal);
      const journal = hasJournal ? await readJournal(paths.journal, replay('journal.jsonl'), { allowTornTail: true }) : null;
      // Before any file changes: a refusal must leave them as they were.
      assertNoRecordsMissing(checkpoint, { dir: opts.dir, snapshotSeq: hasSnapshot ? snapshotSeq : null, old, journal, lastSeq: seq });
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

      // The writer syncs the journal on open, so every record replayed is durable from here on.
      const writer = await JournalWriter.open(paths.journal, paths.old);
      if (checkpoint?.seq !== seq) {
        if (!checkpoint && seq > 0) opts.log(`store: no journal.checkpoint (a store written before there was one); starting as before and writing one at seq ${seq}`);
        await writeCheckpoint(paths.checkpoint, { seq }).catch(async (err: Error) => {
          await writer.close();
          throw err;
        });
      }
      const checkpointer = new Checkpointer(paths.checkpoint, seq, opts.checkpointEveryMs, opts.log);
      return new JournalEngine(opts, state, seq, writer, snapshotDb, checkpointer, releaseLock);
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
    return failed ? `a journal write failed: ${failed.message}` : null;
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
    if (this.loadFailure) return Promise.reject(this.loadFailure);
    const json = JSON.stringify(payload);
    if (this.options.verifyPayloads) assertJsonExact(op, payload, json);
    applyOp(this.state, op, payload);
    const seq = ++this.seq;
    const written = this.writer.append(encodeRecordLine(seq, Date.now(), op, json));
    if (this.writer.bytes >= this.options.snapshotEveryBytes) void this.snapshot();
    return written.then(
      () => this.checkpointer.noteDurable(seq),
      (err: Error) => {
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
    if (this.snapshotFailure) return Promise.resolve();
    const data = captureState(this.state, this.seq);
    const cut = this.writer.rotate();
    const paths = storePaths(this.options.dir);
    this.snapshotting = (async () => {
      await cut;
      await this.snapshotDb.adapter.write(data);
      await unlink(paths.old);
      await fsyncDir(this.options.dir);
    })()
      .catch((err: Error) => {
        // The journals still hold everything; the next start folds them into a snapshot.
        this.snapshotFailure = err;
        this.options.log(`store: snapshot failed, journal kept (${err.message})`);
      })
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
    await this.writer.drain();
    if (this.snapshotting) await this.snapshotting;
    if (this.options.snapshotOnClose && this.writer.bytes > 0 && !this.writer.failed) await this.snapshot();
    await this.writer.close();
    await this.checkpointer.close();
    await this.releaseLock();
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
  if (!isDeepStrictEqual(JSON.parse(json), payload)) throw new Error(`store: the ${op} payload does not survive JSON unchanged (undefined, NaN, a Date or a class instance in it)`);
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
    return { record: (record) => collection.load(record as { id: string }), line: (chunk, start, end) => collection.loadLine(chunk, start, end) };
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
