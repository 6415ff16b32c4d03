import { createReadStream } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { DUMP_KINDS, type DumpKind, recordProblem } from './dump-kinds.js';
import { fsyncDir } from './durable-fs.js';
import type { AccountRecord, CreditRecord } from './records/accounts.js';
import type { ApiKeyRecord } from './records/api-keys.js';
import type { DestinationRecord } from './records/destinations.js';
import type { SecretRecord } from './records/secrets.js';
import type { TaskRecord } from './records/tasks.js';
import type { UploadRecord } from './records/uploads.js';
import type { DeliveryRecord, EventRecord, WebhookRecord } from './records/webhooks.js';

/**
 * The portable store dump: JSON Lines, the same for either backend, so a file data dir can move
 * into PostgreSQL and back (`imgtask store export|import`).
 *
 *   {"imgtask":"store-dump","version":1,"exportedAt":"…","from":"file"}
 *   {"kind":"account","record":{…}}
 *   …
 *   {"imgtask":"store-dump-end","counts":{"account":2,…}}
 *
 * Records come kind by kind in `DUMP_KINDS` order, so a loader meets every account before the
 * records that name it. Each record is the Store API's record as is (money in micro-USD, secrets
 * still sealed with the data dir's key); a task carries its items, `prepared` and `eventId`
 * ("none" when no endpoint wanted its event). The trailer's counts must match the lines read: a
 * file cut short, or with lines lost, is refused.
 *
 * Versions: 1 has no `upload` records; 2 adds them (uploaded images and their owners), last in
 * kind order. Both are read; a dump is written as the newest, so an older imgtask refuses it by
 * its version rather than at its first upload line.
 */
export const DUMP_VERSION = 2;
const HEADER_MARK = 'store-dump';
const TRAILER_MARK = 'store-dump-end';

/** The kinds a dump of `version` can hold: a version 1 dump's trailer does not count uploads. */
const kindsOf = (version: number): readonly DumpKind[] =>
  version < 2 ? DUMP_KINDS.filter((kind) => kind !== 'upload') : DUMP_KINDS;

interface DumpRecordOf {
  account: AccountRecord;
  credit: CreditRecord;
  apiKey: ApiKeyRecord;
  task: TaskRecord;
  secret: SecretRecord;
  webhook: WebhookRecord;
  event: EventRecord;
  delivery: DeliveryRecord;
  destination: DestinationRecord;
  upload: UploadRecord;
}

/** One record of a dump, tagged with its kind. */
export type DumpRecord = { [K in DumpKind]: { kind: K; record: DumpRecordOf[K] } }[DumpKind];
export type DumpCounts = Record<DumpKind, number>;

export interface DumpHeader {
  imgtask: typeof HEADER_MARK;
  version: number;
  exportedAt: string;
  /** The backend it was taken from. */
  from: 'file' | 'postgres';
}

/** A dump that cannot be loaded: cut short, damaged, or of a newer version. */
export class DumpError extends Error {}

/** Thrown by `Store.load` when the target already holds records: names what it holds. */
export class StoreNotEmptyError extends Error {
  constructor(readonly holds: Partial<DumpCounts>) {
    super(`the target store is not empty: it holds ${describeCounts(holds)}; import only into an empty store`);
    this.name = 'StoreNotEmptyError';
  }
}

export const zeroCounts = (): DumpCounts => Object.fromEntries(DUMP_KINDS.map((kind) => [kind, 0])) as DumpCounts;

const PLURALS: Record<DumpKind, string> = {
  account: 'accounts',
  credit: 'credits',
  apiKey: 'API keys',
  task: 'tasks',
  secret: 'secrets',
  webhook: 'webhooks',
  event: 'events',
  delivery: 'deliveries',
  destination: 'destinations',
  upload: 'uploads',
};

/** "2 accounts, 5 tasks" (kinds with none left out); "nothing" when all are zero. */
export function describeCounts(counts: Partial<DumpCounts>): string {
  const parts = DUMP_KINDS.filter((kind) => (counts[kind] ?? 0) > 0).map(
    (kind) =>
      `${counts[kind]} ${counts[kind] === 1 ? PLURALS[kind].replace(/s$/, '').replace(/ie$/, 'y') : PLURALS[kind]}`,
  );
  return parts.length ? parts.join(', ') : 'nothing';
}

/** The line of one record (no newline). */
export const encodeDumpLine = (record: DumpRecord): string =>
  JSON.stringify({ kind: record.kind, record: record.record });

const FLUSH_BYTES = 1 << 20;

/**
 * Writes a dump of `records` to `path`: to a temp file beside it, synced, then renamed, so
 * `path` only ever holds a whole dump. The file is 0600 (it holds key hashes and sealed secrets).
 * Refuses records out of kind order. Answers the counts.
 */
export async function writeDump(
  path: string,
  records: AsyncIterable<DumpRecord>,
  meta: { from: DumpHeader['from']; exportedAt: string },
): Promise<DumpCounts> {
  const temp = `${path}.partial`;
  const handle = await open(temp, 'w', 0o600);
  const counts = zeroCounts();
  try {
    const header: DumpHeader = {
      imgtask: HEADER_MARK,
      version: DUMP_VERSION,
      exportedAt: meta.exportedAt,
      from: meta.from,
    };
    let pending = `${JSON.stringify(header)}\n`;
    let kindAt = 0;
    for await (const record of records) {
      const at = DUMP_KINDS.indexOf(record.kind);
      if (at < kindAt)
        throw new Error(`store dump: a ${record.kind} record came after the ${DUMP_KINDS[kindAt]} records`);
      kindAt = at;
      counts[record.kind] += 1;
      pending += `${encodeDumpLine(record)}\n`;
      if (pending.length >= FLUSH_BYTES) {
        await handle.write(pending);
        pending = '';
      }
    }
    pending += `${JSON.stringify({ imgtask: TRAILER_MARK, counts })}\n`;
    await handle.write(pending);
    await handle.sync();
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await rename(temp, path);
  await fsyncDir(dirname(path));
  return counts;
}

function parseLine(text: string, lineNo: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DumpError(`line ${lineNo} is not JSON (the file is damaged or cut short)`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkHeader(value: unknown): DumpHeader {
  if (!isObject(value) || value.imgtask !== HEADER_MARK)
    throw new DumpError('not an imgtask store dump (its first line is not a store-dump header)');
  if (!Number.isSafeInteger(value.version) || (value.version as number) < 1)
    throw new DumpError(`the dump's version ${JSON.stringify(value.version)} is not one this imgtask knows`);
  if ((value.version as number) > DUMP_VERSION)
    throw new DumpError(
      `the dump is version ${value.version}, newer than this imgtask reads (${DUMP_VERSION}): import it with a newer imgtask`,
    );
  return value as unknown as DumpHeader;
}

/**
 * Reads a dump, checking every line as it goes: the header (a newer version is refused), each
 * record's kind, order and fields, ids unique per kind, every account named known, and at the
 * end the trailer and its counts. Throws DumpError at the first problem, naming the line; a
 * caller that must change nothing unless the whole file is good reads it through once first
 * (`checkDump`), then again to load.
 */
export async function* readDump(
  path: string,
  onHeader?: (header: DumpHeader) => void,
): AsyncGenerator<DumpRecord, DumpCounts> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  const counts = zeroCounts();
  const ids = new Map<DumpKind, Set<string>>(DUMP_KINDS.map((kind) => [kind, new Set<string>()]));
  const accounts = ids.get('account')!;
  let lineNo = 0;
  let header: DumpHeader | undefined;
  let kinds: readonly DumpKind[] = DUMP_KINDS;
  let trailer: Record<string, unknown> | undefined;
  let kindAt = 0;
  try {
    for await (const text of lines) {
      lineNo += 1;
      if (trailer) {
        if (text === '') continue;
        throw new DumpError(`line ${lineNo} follows the dump's last line`);
      }
      const value = parseLine(text, lineNo);
      if (!header) {
        header = checkHeader(value);
        kinds = kindsOf(header.version);
        onHeader?.(header);
        continue;
      }
      if (isObject(value) && value.imgtask === TRAILER_MARK) {
        trailer = value;
        continue;
      }
      if (!isObject(value) || typeof value.kind !== 'string')
        throw new DumpError(`line ${lineNo} is not a record line`);
      const kind = value.kind as DumpKind;
      const at = kinds.includes(kind) ? DUMP_KINDS.indexOf(kind) : -1;
      if (at === -1) throw new DumpError(`line ${lineNo}: unknown kind "${value.kind}"`);
      if (at < kindAt)
        throw new DumpError(
          `line ${lineNo}: a ${kind} record after the ${DUMP_KINDS[kindAt]} records (the file is out of order)`,
        );
      kindAt = at;
      const problem = recordProblem(kind, value.record);
      if (problem) throw new DumpError(`line ${lineNo}: ${kind} record: ${problem}`);
      const record = value.record as { id: string; accountId?: string };
      const seen = ids.get(kind)!;
      if (seen.has(record.id)) throw new DumpError(`line ${lineNo}: ${kind} ${record.id} appears twice`);
      seen.add(record.id);
      if (kind !== 'account' && typeof record.accountId === 'string' && !accounts.has(record.accountId)) {
        throw new DumpError(
          `line ${lineNo}: ${kind} ${record.id} names account ${record.accountId}, which the dump does not hold`,
        );
      }
      counts[kind] += 1;
      yield { kind, record } as DumpRecord;
    }
  } finally {
    lines.close();
  }
  if (!header) throw new DumpError('the file is empty');
  if (!trailer) throw new DumpError(`the dump is cut short: it ends at line ${lineNo} without its last line`);
  const expected = trailer.counts;
  if (!isObject(expected) || kinds.some((kind) => expected[kind] !== counts[kind])) {
    throw new DumpError(
      `the dump's last line counts ${isObject(expected) ? describeCounts(expected as Partial<DumpCounts>) : 'nothing'} but it holds ${describeCounts(counts)}: records are missing`,
    );
  }
  return counts;
}

/** Reads a whole dump through `readDump`'s checks without keeping it: its header and counts. */
export async function checkDump(path: string): Promise<{ header: DumpHeader; counts: DumpCounts }> {
  let header: DumpHeader | undefined;
  const reader = readDump(path, (h) => {
    header = h;
  });
  for (;;) {
    const next = await reader.next();
    if (next.done) return { header: header!, counts: next.value };
  }
}
