import { type FileHandle, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isOutOfSpace } from '../../../domain/storage-full.js';
import { fsyncDir, nodeStorageFs, type StorageFs, writeAll } from '../../durable-fs.js';

type Waiter = { resolve: () => void; reject: (err: Error) => void };
type Entry = ({ kind: 'line'; line: string } | { kind: 'rotate' } | { kind: 'barrier' }) & Waiter;

export interface JournalWriterOptions {
  /** Where files are opened; Node's own unless a test fails writes on purpose. */
  fs?: StorageFs;
  /**
   * Called, synchronously, when a write or sync fails for lack of space, before any waiter
   * hears of it: `lines` lines (the last ones appended, none of them durable) are dropped and
   * refused. The owner undoes their changes here, before anything else can run.
   */
  onRefused?: (lines: number, err: Error) => void;
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/**
 * Appends journal lines with group commit: every line queued while the previous batch
 * was being written and fsynced goes out in the next single write + fdatasync, and each
 * caller's promise resolves only once its line is durable.
 *
 * A write or sync that fails for lack of space (ENOSPC, EDQUOT) fails its batch and every line
 * queued after it, cuts the file back to its last durable record and refuses lines until
 * `resume` (the owner calls it once space is back): the disk then holds exactly the lines
 * acknowledged. Any other failure poisons the writer for good: the in-memory state may now be
 * ahead of the disk, so every later append is refused and the owner must stop (as databases do
 * on an fsync failure, rather than retrying a sync whose dirty pages may already be dropped).
 */
export class JournalWriter {
  private queue: Entry[] = [];
  private flushing = false;
  private failure: Error | null = null;
  private refusal: Error | null = null;
  /** The file's length to cut back to before taking lines again; null when it holds only durable lines. */
  private cutBackTo: number | null = null;
  /** Bytes of the current file written and synced. */
  private durable: number;
  private idleWaiters: Array<() => void> = [];

  private constructor(
    private handle: FileHandle,
    readonly path: string,
    readonly oldPath: string,
    private size: number,
    private readonly fs: StorageFs,
    private readonly onRefused: (lines: number, err: Error) => void,
  ) {
    this.durable = size;
  }

  static async open(path: string, oldPath: string, options: JournalWriterOptions = {}): Promise<JournalWriter> {
    const fs = options.fs ?? nodeStorageFs;
    const handle = await fs.open(path, 'a', 0o600);
    // A killed writer can leave records written but never synced; start-up has just replayed
    // them, so make them durable before anything (a write, the checkpoint) builds on them.
    await handle.datasync();
    // The file may have just been created: make its name durable before any record is acknowledged.
    await fsyncDir(dirname(path));
    const { size } = await handle.stat();
    return new JournalWriter(handle, path, oldPath, size, fs, options.onRefused ?? (() => undefined));
  }

  /** Bytes in the current journal file, durable or queued. */
  get bytes(): number {
    return this.size;
  }

  /** The failure that stopped the writer for good (not a lack of space). */
  get failed(): Error | null {
    return this.failure;
  }

  /** The lack of space lines are refused for until `resume`; null while lines are taken. */
  get refused(): Error | null {
    return this.refusal;
  }

  append(line: string): Promise<void> {
    const refused = this.failure ?? this.refusal;
    if (refused) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'line', line, resolve, reject });
      this.size += Buffer.byteLength(line);
      this.kick();
    });
  }

  /**
   * Cuts the journal at this exact point: lines appended before this call end up in
   * `oldPath`, lines after it in a fresh file at `path`. Must be called in the same tick
   * as the state capture it pairs with. A cut refused or failed for lack of space changes no file.
   */
  rotate(): Promise<void> {
    return this.enqueue('rotate');
  }

  /** Resolves once every line appended before this call is durable; rejects if one of them fails. */
  barrier(): Promise<void> {
    return this.enqueue('barrier');
  }

  /**
   * After a refusal for lack of space: cuts the file back to its last durable line (if that
   * did not happen at the time) and takes lines again. Throws as the cut does.
   */
  async resume(): Promise<void> {
    if (this.failure) throw this.failure;
    await this.cutBack();
    this.refusal = null;
  }

  /** Resolves when everything queued so far is durable. */
  async drain(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    await this.drain();
    // Best effort: a file cut back now holds no line that was refused.
    if (!this.failure) await this.cutBack().catch(() => undefined);
    await this.handle.close();
  }

  private enqueue(kind: 'rotate' | 'barrier'): Promise<void> {
    const refused = this.failure ?? this.refusal;
    if (refused) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      this.queue.push({ kind, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = true;
    // setImmediate lets every record of the current tick join the first batch.
    setImmediate(() => void this.flushLoop());
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0 && !this.failure && !this.refusal) {
      const cut = this.queue.findIndex((entry) => entry.kind !== 'line');
      // Either a run of lines (up to the next cut or barrier) or that one entry.
      const batch = cut === 0 ? this.queue.splice(0, 1) : this.queue.splice(0, cut === -1 ? this.queue.length : cut);
      try {
        if (batch[0].kind === 'rotate') {
          await this.swapFiles();
        } else if (batch[0].kind === 'line') {
          const data = Buffer.from(batch.map((entry) => (entry.kind === 'line' ? entry.line : '')).join(''));
          await writeAll(this.handle, data);
          await this.handle.datasync();
          this.durable += data.length;
        }
        for (const entry of batch) entry.resolve();
      } catch (err) {
        const error = asError(err);
        const dropped = [...batch, ...this.queue.splice(0)];
        if (isOutOfSpace(error)) {
          this.refusal = error;
          this.cutBackTo = this.durable;
          this.size = this.durable;
          this.onRefused(dropped.filter((entry) => entry.kind === 'line').length, error);
          for (const entry of dropped) entry.reject(error);
          // Cut back now; failing that, `resume` tries again before any line is taken.
          await this.cutBack().catch(() => undefined);
        } else {
          this.failure = error;
          for (const entry of dropped) entry.reject(error);
        }
      }
    }
    this.flushing = false;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Truncates away whatever part of a failed batch reached the file, and syncs that. */
  private async cutBack(): Promise<void> {
    if (this.cutBackTo === null) return;
    await this.handle.truncate(this.cutBackTo);
    await this.handle.datasync();
    this.cutBackTo = null;
  }

  private async swapFiles(): Promise<void> {
    await rename(this.path, this.oldPath);
    let fresh: FileHandle | undefined;
    try {
      fresh = await this.fs.open(this.path, 'a', 0o600);
      await fsyncDir(dirname(this.path));
    } catch (err) {
      await fresh?.close().catch(() => undefined);
      if (!isOutOfSpace(err)) throw err; // the writer fails from here on, keeping (and closing) the handle it has
      // No room for the new file: put the journal back under its name (over the empty new one),
      // so that the cut never happened. The handle still points at it.
      try {
        await rename(this.oldPath, this.path);
      } catch (undo) {
        throw new Error(
          `a journal cut failed for lack of space (${(err as Error).message}) and could not be undone: ${asError(undo).message}`,
        );
      }
      await fsyncDir(dirname(this.path)).catch(() => undefined);
      throw err;
    }
    await this.handle.close();
    this.handle = fresh;
    this.size = 0;
    this.durable = 0;
    for (const entry of this.queue) if (entry.kind === 'line') this.size += Buffer.byteLength(entry.line);
  }
}
