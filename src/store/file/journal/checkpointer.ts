import type { StorageFs } from '../../durable-fs.js';
import { writeCheckpoint } from './checkpoint-file.js';

/**
 * Keeps journal.checkpoint at most `everyMs` behind the last durable record, off the write
 * path: acknowledging a write never waits for it. Each refresh costs a small file write, an
 * fsync, a rename and a directory fsync, so it happens at most once per interval, whatever
 * the write rate, and never later than one interval after a write is acknowledged.
 *
 * The bound this buys: start-up detects the loss of any record older than the last refresh
 * (`everyMs` plus one refresh); a journal cut at a record boundary that removes only records
 * acknowledged since then goes unnoticed. A clean close writes an exact checkpoint.
 */
export class Checkpointer {
  private durableSeq: number;
  private writtenSeq: number;
  private lastWriteAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private failing = false;
  private closed = false;

  /** `seq` is already in the checkpoint file and durable. */
  constructor(
    private readonly path: string,
    seq: number,
    private readonly everyMs: number,
    private readonly log: (message: string) => void,
    private readonly fs?: StorageFs,
  ) {
    this.durableSeq = seq;
    this.writtenSeq = seq;
  }

  /** Every record up to `seq` is now durable (fsynced). */
  noteDurable(seq: number): void {
    if (seq <= this.durableSeq) return;
    this.durableSeq = seq;
    this.schedule();
  }

  /** Writes the last durable seq now, after any refresh in flight; no refresh follows. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.writing;
    if (this.durableSeq > this.writtenSeq) await this.write();
  }

  private schedule(): void {
    if (this.timer || this.writing || this.closed) return;
    const wait = Math.max(0, this.lastWriteAt + this.everyMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.write();
    }, wait);
    // A pending refresh must not keep a process alive: the checkpoint only ever lags.
    this.timer.unref();
  }

  private write(): Promise<void> {
    const seq = this.durableSeq;
    this.lastWriteAt = Date.now();
    this.writing = writeCheckpoint(this.path, { seq }, this.fs)
      .then(
        () => {
          this.writtenSeq = seq;
          if (this.failing) this.log('store: journal.checkpoint is written again');
          this.failing = false;
        },
        (err: Error) => {
          // Not fatal: the journal still holds every record; start-up only checks less.
          if (!this.failing)
            this.log(`store: could not update journal.checkpoint, retrying each interval (${err.message})`);
          this.failing = true;
        },
      )
      .finally(() => {
        this.writing = null;
        if (this.durableSeq > this.writtenSeq) this.schedule();
      });
    return this.writing;
  }
}
