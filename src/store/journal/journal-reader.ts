import { open } from 'node:fs/promises';
import { basename } from 'node:path';
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

const CHUNK = 1 << 20;

/**
 * Streams a journal file and hands each good record to `onRecord`, in order.
 * A bad last line (torn write) is reported in `droppedTail` when `allowTornTail` is set;
 * a bad line with a good one after it is corruption and throws StoreCorruptError.
 */
export async function readJournal(
  path: string,
  onRecord: (record: JournalRecord) => void,
  { allowTornTail }: { allowTornTail: boolean },
): Promise<ReadJournalResult> {
  const handle = await open(path, 'r');
  const name = basename(path);
  let goodBytes = 0;
  let lineNumber = 0;
  let pendingBad: { line: number; offset: number; reason: string; seq?: number } | null = null;
  let carry = Buffer.alloc(0);
  let offset = 0;

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

  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      let data = carry.length ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
        onLine(data.subarray(start, nl), offset + start);
        start = nl + 1;
      }
      offset += start;
      carry = Buffer.from(data.subarray(start));
      data = Buffer.alloc(0);
    }
  } finally {
    await handle.close();
  }

  // A final line without its newline is a write cut short by a crash.
  if (carry.length) {
    lineNumber += 1;
    if (pendingBad) fail(pendingBad);
    pendingBad = { line: lineNumber, offset, reason: 'torn write, no newline' };
  }
  if (!pendingBad) return { goodBytes };
  const bad: { line: number; offset: number; reason: string; seq?: number } = pendingBad;
  if (!allowTornTail) {
    throw new StoreCorruptError(
      `${name}: last record at line ${bad.line}, byte offset ${bad.offset}, is corrupt (${bad.reason}) ` +
        `in a journal that should be complete. Refusing to start; the file is left untouched.`,
    );
  }
  return { goodBytes, droppedTail: `${name}: dropped the torn last record at line ${bad.line} (${bad.reason})` };
}
