import { basename } from 'node:path';
import { forEachLine } from '../line-reader.js';
import { decodeRecord, type JournalRecord } from './record.js';

/** Corruption that start-up must not paper over: it names the file and the record. */
export class StoreCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreCorruptError';
  }
}

export interface ReadJournalResult {
  /** Bytes of good records; a torn tail starts here. */
  goodBytes: number;
  /** Set when a torn or corrupt last record was dropped. */
  droppedTail?: string;
}

/**
 * Streams a journal file and hands each good record to `onRecord`, in order.
 * A bad last line (torn write) is reported in `droppedTail` when `allowTornTail` is set;
 * a bad line with a good one after it is corruption and throws StoreCorruptError.
 */
export async function readJournal(path: string, onRecord: (record: JournalRecord) => void, { allowTornTail }: { allowTornTail: boolean }): Promise<ReadJournalResult> {
  const name = basename(path);
  let goodBytes = 0;
  let lineNumber = 0;
  let pendingBad: { line: number; offset: number; reason: string; seq?: number } | null = null;
  const fail = (bad: { line: number; offset: number; reason: string; seq?: number }): never => {
    const seq = bad.seq === undefined ? '' : ` (seq ${bad.seq})`;
    throw new StoreCorruptError(
      `${name}: record at line ${bad.line}${seq}, byte offset ${bad.offset}, is corrupt (${bad.reason}) ` +
        `and good records follow it. Refusing to start; the file is left untouched. ` +
        `Restore the data dir from a backup or inspect ${path}.`,
    );
  };

  const onLine = (bytes: Buffer, lineOffset: number): void => {
    lineNumber += 1;
    if (pendingBad) fail(pendingBad);
    const decoded = decodeRecord(bytes.toString('utf8'));
    if (!decoded.ok) {
      const seqMatch = /^\{"seq":(\d+)/.exec(bytes.subarray(0, 40).toString('latin1'));
      pendingBad = { line: lineNumber, offset: lineOffset, reason: decoded.reason, seq: seqMatch ? Number(seqMatch[1]) : undefined };
      return;
    }
    onRecord(decoded.record);
    goodBytes = lineOffset + bytes.length + 1;
  };

  const { tail, tailOffset } = await forEachLine(path, onLine);

  // A final line without its newline is a write cut short by a crash.
  if (tail.length) {
    lineNumber += 1;
    if (pendingBad) fail(pendingBad);
    pendingBad = { line: lineNumber, offset: tailOffset, reason: 'torn write, no newline' };
  }
  if (!pendingBad) return { goodBytes };
  const bad: { line: number; offset: number; reason: string; seq?: number } = pendingBad;
  if (!allowTornTail) {
    throw new StoreCorruptError(
      `${name}: last record at line ${bad.line}, byte offset ${bad.offset}, is corrupt (${bad.reason}) in a journal that should be complete. Refusing to start; the file is left untouched.`,
    );
  }
  return { goodBytes, droppedTail: `${name}: dropped the torn last record at line ${bad.line} (${bad.reason})` };
}
