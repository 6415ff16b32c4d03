import type { UploadRecord } from '../records/uploads.js';

/** Uploaded images and who owns them; a record with `deletedAt` is a deleted upload's tombstone. */
export interface UploadRepo {
  /** Inserts or replaces (a tombstone replaces its upload). */
  put(upload: UploadRecord): Promise<void>;
  get(id: string): Promise<UploadRecord | undefined>;
  /** False when there was no such record. */
  delete(id: string): Promise<boolean>;
  /** The account's uploads (tombstones included) created before `before`, at most `limit`, oldest first. */
  createdBefore(accountId: string, before: string, limit: number): Promise<UploadRecord[]>;
  /** How many uploads the account holds, and their bytes (tombstones left out). */
  usage(accountId: string): Promise<{ count: number; bytes: number }>;
  /** Every upload, tombstones included (doctor's inventory). */
  all(): Promise<Iterable<UploadRecord>>;
}
