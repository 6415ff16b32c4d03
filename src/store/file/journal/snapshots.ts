import { unlink } from 'node:fs/promises';
import type { Low } from 'lowdb';
import { isOutOfSpace } from '../../../domain/storage-full.js';
import { fsyncDir } from '../../durable-fs.js';
import type { SnapshotData } from '../snapshot-file.js';
import type { JournalWriter } from './journal-writer.js';
import { removeStrayTempFiles, storePaths } from './store-files.js';

/** How long a snapshot waits before trying again to fold journals a space failure left. */
const FOLD_RETRY_MS = 60_000;

export interface SnapshotsOptions {
  dir: string;
  snapshotDb: Low<SnapshotData>;
  writer: JournalWriter;
  /** The state as of now, as a snapshot's content. */
  capture: () => SnapshotData;
  /** True while writes are refused for lack of space: no journal cut then. */
  refused: () => boolean;
  log: (message: string) => void;
}

/** Snapshots through lowdb, each at a journal cut, so that start-up replays only the journal after it. */
export class Snapshots {
  private snapshotting: Promise<void> | null = null;
  /** The seq of the last snapshot written at a journal cut: every record up to it is in no file but the snapshot. */
  private cutSnapshotSeq = 0;
  private snapshotFailure: Error | null = null;
  /** When a snapshot last tried to fold the journals left by a snapshot that failed for lack of space. */
  private lastFoldAt = 0;

  constructor(private readonly options: SnapshotsOptions) {}

  /** The snapshot under way, if any. */
  get running(): Promise<void> | null {
    return this.snapshotting;
  }

  /** Why the last snapshot failed; null once one succeeded. */
  get failure(): Error | null {
    return this.snapshotFailure;
  }

  /** Whether a journal of `bytes` calls for a snapshot, given the size that triggers one. */
  due(bytes: number, everyBytes: number): boolean {
    return bytes >= everyBytes && (!this.snapshotFailure || Date.now() - this.lastFoldAt >= FOLD_RETRY_MS);
  }

  /**
   * Writes a snapshot of the state as of now and cuts the journal. The state is captured
   * and the journal cut in the same tick; serialising happens while writes go on.
   */
  take(): Promise<void> {
    if (this.snapshotting) return this.snapshotting;
    if (this.snapshotFailure) return this.foldAfterSpaceFailure();
    if (this.options.refused()) return Promise.resolve();
    const data = this.options.capture();
    const cut = this.options.writer.rotate();
    const paths = storePaths(this.options.dir);
    this.snapshotting = (async () => {
      try {
        await cut;
      } catch (err) {
        // Refused or failed for lack of space: no file changed, and a later snapshot may cut.
        if (isOutOfSpace(err)) return;
        throw err;
      }
      await this.options.snapshotDb.adapter.write(data);
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
   * Rewrites the store's files so that no record up to `target` is in any file but a snapshot
   * taken at a journal cut (an earlier snapshot still under way is waited for first: it may
   * predate the call), then removes the temp files of interrupted writes. `writeFailure` says why
   * the store takes no writes now, if so. Throws when the snapshot cannot be written.
   */
  async compact(target: number, writeFailure: () => string | null): Promise<void> {
    // A snapshot after a space failure folds without a cut: a second round then cuts.
    for (let round = 0; round < 3 && this.cutSnapshotSeq < target; round++) {
      while (this.snapshotting) await this.snapshotting;
      const failure =
        writeFailure() ??
        (this.snapshotFailure && !isOutOfSpace(this.snapshotFailure)
          ? `a snapshot failed: ${this.snapshotFailure.message}`
          : null);
      if (failure) throw new Error(`store: cannot compact: ${failure}`);
      await this.take();
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
    if (!isOutOfSpace(this.snapshotFailure) || this.options.refused()) return Promise.resolve();
    this.lastFoldAt = Date.now();
    const data = this.options.capture();
    const durable = this.options.writer.barrier();
    const paths = storePaths(this.options.dir);
    this.snapshotting = (async () => {
      await durable;
      await this.options.snapshotDb.adapter.write(data);
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
}
