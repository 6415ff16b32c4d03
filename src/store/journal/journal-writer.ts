import { type FileHandle, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDir, writeAll } from '../durable-fs.js';

type Entry = { kind: 'line'; line: string; resolve: () => void; reject: (err: Error) => void } | { kind: 'rotate'; resolve: () => void; reject: (err: Error) => void };

/**
 * Appends journal lines with group commit: every line queued while the previous batch
 * was being written and fsynced goes out in the next single write + fdatasync, and each
 * caller's promise resolves only once its line is durable.
 *
 * A failed write or sync poisons the writer: the in-memory state may now be ahead of the
 * disk, so every later append is refused and the owner must stop (as databases do on an
 * fsync failure, rather than retrying a sync whose dirty pages may already be dropped).
 */
export class JournalWriter {
  private queue: Entry[] = [];
  private flushing = false;
  private failure: Error | null = null;
  private idleWaiters: Array<() => void> = [];

  private constructor(
    private handle: FileHandle,
    readonly path: string,
    readonly oldPath: string,
    private size: number,
  ) {}

  static async open(path: string, oldPath: string): Promise<JournalWriter> {
    const handle = await open(path, 'a', 0o600);
    // A killed writer can leave records written but never synced; start-up has just replayed
    // them, so make them durable before anything (a write, the checkpoint) builds on them.
    await handle.datasync();
    // The file may have just been created: make its name durable before any record is acknowledged.
    await fsyncDir(dirname(path));
    const { size } = await handle.stat();
    return new JournalWriter(handle, path, oldPath, size);
  }

  /** Bytes in the current journal file, durable or queued. */
  get bytes(): number {
    return this.size;
  }

  get failed(): Error | null {
    return this.failure;
  }

  append(line: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'line', line, resolve, reject });
      this.size += Buffer.byteLength(line);
      this.kick();
    });
  }

  /**
   * Cuts the journal at this exact point: lines appended before this call end up in
   * `oldPath`, lines after it in a fresh file at `path`. Must be called in the same tick
   * as the state capture it pairs with.
   */
  rotate(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'rotate', resolve, reject });
      this.kick();
    });
  }

  /** Resolves when everything queued so far is durable. */
  async drain(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    await this.drain();
    await this.handle.close();
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = true;
    // setImmediate lets every record of the current tick join the first batch.
    setImmediate(() => void this.flushLoop());
  }

  private async flushLoop(): Promise<void> {
    while (this.queue.length > 0 && !this.failure) {
      const cut = this.queue.findIndex((entry) => entry.kind === 'rotate');
      // Either a run of lines (up to the next cut) or the cut itself.
      const batch = cut === 0 ? this.queue.splice(0, 1) : this.queue.splice(0, cut === -1 ? this.queue.length : cut);
      try {
        if (batch[0].kind === 'rotate') {
          await this.swapFiles();
        } else {
          const data = Buffer.from(batch.map((entry) => (entry.kind === 'line' ? entry.line : '')).join(''));
          await writeAll(this.handle, data);
          await this.handle.datasync();
        }
        for (const entry of batch) entry.resolve();
      } catch (err) {
        this.failure = err instanceof Error ? err : new Error(String(err));
        for (const entry of [...batch, ...this.queue.splice(0)]) entry.reject(this.failure);
      }
    }
    this.flushing = false;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private async swapFiles(): Promise<void> {
    await rename(this.path, this.oldPath);
    const fresh = await open(this.path, 'a', 0o600);
    try {
      await fsyncDir(dirname(this.path));
    } catch (err) {
      // The writer fails from here on; it keeps (and closes) the handle it has, not this one.
      await fresh.close();
      throw err;
    }
    await this.handle.close();
    this.handle = fresh;
    this.size = 0;
    for (const entry of this.queue) if (entry.kind === 'line') this.size += Buffer.byteLength(entry.line);
  }
}
