import type { Checkpoint } from './checkpoint-file.js';
import { describeTornTail, type ReadJournalResult, StoreCorruptError } from './journal-reader.js';

/** What start-up found in the store's files, before changing any of them. */
export interface StoreFilesFound {
  dir: string;
  /** The snapshot's seq, or null when there is no snapshot.json. */
  snapshotSeq: number | null;
  old: ReadJournalResult | null;
  journal: ReadJournalResult | null;
  /** The last seq replayed: the files end here (a torn tail excluded). */
  lastSeq: number;
}

/**
 * Refuses start when the files end before the checkpoint: records acknowledged as durable
 * are gone, whether a journal was cut at a record boundary, emptied or deleted, a snapshot
 * lost, or a torn tail reaches into acknowledged records. Nothing in the files alone shows it.
 */
export function assertNoRecordsMissing(checkpoint: Checkpoint | null, found: StoreFilesFound): void {
  if (!checkpoint || found.lastSeq >= checkpoint.seq) return;
  const first = found.lastSeq + 1;
  const missing =
    first === checkpoint.seq ? `record ${first} is missing` : `records ${first} to ${checkpoint.seq} are missing`;
  throw new StoreCorruptError(
    `journal.checkpoint says records up to seq ${checkpoint.seq} were written durably, but the store's files end at seq ${found.lastSeq}: ` +
      `${missing} from ${found.dir} (${describeFiles(found)}). A journal was cut short, emptied or deleted, or the data dir was restored from an older copy. ` +
      `Refusing to start; the files are left untouched. Restore the data dir from a backup, or, to accept the loss and start from seq ${found.lastSeq}, delete journal.checkpoint.`,
  );
}

function describeFiles(found: StoreFilesFound): string {
  return [
    found.snapshotSeq === null ? 'no snapshot.json' : `snapshot.json at seq ${found.snapshotSeq}`,
    ...(found.old ? [describeJournal('journal.old.jsonl', found.old)] : []),
    found.journal ? describeJournal('journal.jsonl', found.journal) : 'journal.jsonl is missing',
  ].join('; ');
}

function describeJournal(name: string, read: ReadJournalResult): string {
  if (read.records === 0 && !read.tornTail) return `${name} is empty`;
  const records =
    read.records === 0
      ? `${name}: no good record`
      : `${name}: ${read.records} record${read.records === 1 ? '' : 's'} to seq ${read.lastSeq}, ${read.goodBytes} bytes`;
  return read.tornTail ? `${records}, then ${describeTornTail(read.tornTail, read.lastSeq)}` : records;
}
