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

/** The bad lines after a journal's last good record: where they start, how many, and why the first is bad. */
export interface TornTail {
  line: number;
  offset: number;
  lines: number;
  reason: string;
}

export interface ReadJournalResult {
  /** Bytes of good records; a torn tail starts here. */
  goodBytes: number;
  /** Good records read, and the seq of the last one. */
  records: number;
  lastSeq?: number;
  /** Set when bad lines follow the last good record (only when `allowTornTail`). */
  tornTail?: TornTail;
}

interface BadLine {
  line: number;
  offset: number;
  reason: string;
  seq?: number;
}

/**
 * Streams a journal file and hands each good record to `onRecord`, in order.
 *
 * What a crash can leave: the writer appends each group commit with one write and then
 * fdatasyncs it, and never starts the next write before that sync returns. So at most one
 * batch is unacknowledged at a crash, and only its bytes, at the very end, can be damaged.
 * A killed process leaves a prefix of that write (whole lines, then at most one line with
 * no newline). A power loss can leave more: pages of the unsynced batch that never reached
 * the disk read back as zeros or stale bytes, so several bad lines, newline-terminated or
 * not, may follow the last good record. Hence the rule: every line after the last good
 * record is bad → a torn tail, reported in `tornTail` when `allowTornTail` is set (the
 * caller checks the checkpoint before dropping it: none of it may be acknowledged). Any good
 * record after a bad line → corruption in the middle of the file: StoreCorruptError, even if
 * it was a later page of the same torn batch, since this file alone cannot tell the two apart.
 */
export async function readJournal(
  path: string,
  onRecord: (record: JournalRecord) => void,
  { allowTornTail }: { allowTornTail: boolean },
): Promise<ReadJournalResult> {
  const name = basename(path);
  let goodBytes = 0;
  let lineNumber = 0;
  let records = 0;
  let lastSeq: number | undefined;
  let firstBad: BadLine | null = null;
  let badLines = 0;

  const onLine = (bytes: Buffer, lineOffset: number): void => {
    lineNumber += 1;
    const decoded = decodeRecord(bytes.toString('utf8'));
    if (!decoded.ok) {
      const seqMatch = /^\{"seq":(\d+)/.exec(bytes.subarray(0, 40).toString('latin1'));
      firstBad ??= {
        line: lineNumber,
        offset: lineOffset,
        reason: decoded.reason,
        seq: seqMatch ? Number(seqMatch[1]) : undefined,
      };
      badLines += 1;
      return;
    }
    if (firstBad) throw corruptMidFile(name, path, firstBad, lineNumber, decoded.record.seq);
    onRecord(decoded.record);
    records += 1;
    lastSeq = decoded.record.seq;
    goodBytes = lineOffset + bytes.length + 1;
  };

  const { tail, tailOffset } = await forEachLine(path, onLine);

  // A final line without its newline is a write cut short by a crash.
  if (tail.length) {
    lineNumber += 1;
    firstBad ??= { line: lineNumber, offset: tailOffset, reason: 'torn write, no newline' };
    badLines += 1;
  }
  if (!firstBad) return { goodBytes, records, lastSeq };
  const bad: BadLine = firstBad;
  if (!allowTornTail) {
    throw new StoreCorruptError(
      `${name}: record at line ${bad.line}, byte offset ${bad.offset}, is corrupt (${bad.reason}) in a journal that should be complete. Refusing to start; the file is left untouched.`,
    );
  }
  return {
    goodBytes,
    records,
    lastSeq,
    tornTail: { line: bad.line, offset: bad.offset, lines: badLines, reason: bad.reason },
  };
}

/** "2 bad lines after the last good record (seq 10), from line 11, byte offset 1913 (checksum mismatch)" */
export function describeTornTail(tail: TornTail, lastSeq: number | undefined): string {
  const after =
    lastSeq === undefined ? 'with no good record before them' : `after the last good record (seq ${lastSeq})`;
  return `${tail.lines} bad line${tail.lines === 1 ? '' : 's'} ${after}, from line ${tail.line}, byte offset ${tail.offset} (${tail.reason})`;
}

function corruptMidFile(
  name: string,
  path: string,
  bad: BadLine,
  goodLine: number,
  goodSeq: number,
): StoreCorruptError {
  const seq = bad.seq === undefined ? '' : ` (seq ${bad.seq})`;
  return new StoreCorruptError(
    `${name}: record at line ${bad.line}${seq}, byte offset ${bad.offset}, is corrupt (${bad.reason}) ` +
      `and a good record follows at line ${goodLine} (seq ${goodSeq}), so this is not a torn write. ` +
      `Refusing to start; the file is left untouched. Restore the data dir from a backup or inspect ${path}.`,
  );
}
