import { crc32 } from 'node:zlib';

/** One change to the state: an op name and its payload. */
interface Op {
  op: string;
  p: unknown;
}

/** An op as journaled: with its sequence number and time. */
export interface JournalRecord extends Op {
  seq: number;
  t: number;
}

// Every line ends with this fixed-width trailer: `,"crc":"xxxxxxxx"}`.
const TRAILER_LENGTH = ',"crc":"'.length + 8 + '"}'.length;
const TRAILER = /^,"crc":"([0-9a-f]{8})"\}$/;

const hex8 = (value: number): string => value.toString(16).padStart(8, '0');

/**
 * Encodes a record as one JSON line whose last field is the CRC-32 of the line's bytes
 * without that field. The line stays plain JSON, readable with any tool.
 */
export function encodeRecord(record: JournalRecord): string {
  return encodeRecordLine(record.seq, record.t, record.op, JSON.stringify(record.p));
}

/**
 * The same line from a payload already serialised: the text equals `JSON.stringify` of the
 * whole record, built without serialising the payload a second time.
 */
export function encodeRecordLine(seq: number, t: number, op: string, payloadJson: string): string {
  const body = `{"seq":${seq},"t":${t},"op":${JSON.stringify(op)},"p":${payloadJson}}`;
  return `${body.slice(0, -1)},"crc":"${hex8(crc32(body))}"}\n`;
}

export type DecodeResult = { ok: true; record: JournalRecord } | { ok: false; reason: string };

/** Decodes one line (without its newline) and checks its checksum. */
export function decodeRecord(line: string): DecodeResult {
  const trailer = TRAILER.exec(line.slice(-TRAILER_LENGTH));
  if (!trailer) return { ok: false, reason: 'missing checksum' };
  const body = `${line.slice(0, -TRAILER_LENGTH)}}`;
  if (hex8(crc32(body)) !== trailer[1]) return { ok: false, reason: 'checksum mismatch' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const record = parsed as JournalRecord;
  if (!Number.isSafeInteger(record.seq) || typeof record.op !== 'string' || typeof record.t !== 'number') {
    return { ok: false, reason: 'missing seq, t or op' };
  }
  return { ok: true, record };
}
