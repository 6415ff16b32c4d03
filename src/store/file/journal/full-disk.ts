import { isOutOfSpace, storageFull } from '../../../domain/storage-full.js';
import { probeWrite, type StorageFs } from '../../durable-fs.js';

/** The probe that decides whether writes resume: room for this much, written and synced. */
const PROBE_BYTES = 64 * 1024;

export const errorCode = (err: Error): string => (err as NodeJS.ErrnoException).code ?? err.message;

/** What a commit refused for lack of space answers: nothing was written. */
export const refusedForSpace = () =>
  storageFull("the server's storage is full: nothing was written; retry once space is freed");

export interface FullDiskOptions {
  dir: string;
  fs: StorageFs;
  /** How often, while writes are refused, a probe write checks whether space is back. */
  retryEveryMs: number;
  log: (message: string) => void;
  /** Cuts the journal back to its last durable record: writes resume once it did. */
  resume: () => Promise<void>;
  /** A probe failed for a reason other than space: the process must stop as on any I/O failure. */
  onFatal: (err: Error) => void;
  /** Called each time writes are taken again. */
  onResume?: () => void;
}

/**
 * The full-disk cycle: once a journal write fails for lack of space, writes are refused, and a
 * probe write every `retryEveryMs` checks whether space is back; when it fits, writes are taken again.
 */
export class FullDiskRefusal {
  /** Set while writes are refused: since when, and the error that started it. */
  private refusal: { since: Date; error: Error } | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: FullDiskOptions) {}

  get refused(): boolean {
    return this.refusal !== null;
  }

  /** Why writes are refused now; null while they are taken. */
  reason(): string | null {
    if (!this.refusal) return null;
    return `out of space: writes are refused since ${this.refusal.since.toISOString()} (${errorCode(this.refusal.error)}); they resume by themselves once space is freed`;
  }

  /** Starts refusing writes, after the last `lines` records were dropped and their changes undone. */
  refuse(lines: number, err: Error): void {
    this.refusal = { since: new Date(), error: err };
    this.options.log(
      `store: a journal write failed for lack of space (${errorCode(err)}): ${lines} change(s) undone and answered 507; writes are refused until space is freed (checked every ${this.options.retryEveryMs} ms)`,
    );
    this.scheduleProbe();
  }

  /** No more probes (the store closes); waits for one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    await this.probing;
  }

  private scheduleProbe(): void {
    if (this.probeTimer || this.stopped) return;
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
    if (this.stopped || !this.refusal) return;
    try {
      await probeWrite(this.options.dir, PROBE_BYTES, this.options.fs);
      await this.options.resume();
    } catch (err) {
      if (!isOutOfSpace(err)) {
        // Not a lack of space: the journal may still hold refused records; stop as on any I/O failure.
        this.options.onFatal(err as Error);
        return;
      }
      this.scheduleProbe();
      return;
    }
    if (this.stopped) return;
    const since = this.refusal.since;
    this.refusal = null;
    this.options.log(
      `store: space is back: writes are taken again, ${Math.round((Date.now() - since.getTime()) / 1000)} s after the disk filled`,
    );
    this.options.onResume?.();
  }
}
