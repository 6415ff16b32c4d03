import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { replaceFileDurably, type StorageFs } from '../../durable-fs.js';
import { StoreCorruptError } from './journal-reader.js';

const CHECKPOINT_FORMAT = 'imgtask-journal-checkpoint';
const CHECKPOINT_VERSION = 1;

/**
 * What the store knows was durable: every record up to `seq` had been fsynced when this was
 * written. Seqs are dense and run on across journal cuts, so this one number says which
 * records start-up must find, whichever file (snapshot, journal.old, journal) holds them.
 */
export interface Checkpoint {
  seq: number;
}

/** Reads the checkpoint (one short line, so O(1)); null when there is none yet. */
export async function readCheckpoint(path: string): Promise<Checkpoint | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const unreadable = (why: string): never => {
    throw new StoreCorruptError(
      `${basename(path)}: unreadable (${why}). Refusing to start; the files are left untouched. ` +
        'It holds the last record known to be durable; if it alone is damaged, delete it and start again (start writes a new one).',
    );
  };
  let parsed: { format?: unknown; version?: unknown; seq?: unknown };
  try {
    parsed = JSON.parse(text);
  } catch {
    return unreadable('not JSON');
  }
  if (parsed?.format !== CHECKPOINT_FORMAT || parsed.version !== CHECKPOINT_VERSION)
    return unreadable('unknown checkpoint format');
  if (!Number.isSafeInteger(parsed.seq) || (parsed.seq as number) < 0) return unreadable('no seq');
  return { seq: parsed.seq as number };
}

/** Replaces the checkpoint atomically and durably (temp file, fsync, rename, fsync dir). */
export async function writeCheckpoint(path: string, checkpoint: Checkpoint, fs?: StorageFs): Promise<void> {
  const line = `${JSON.stringify({ format: CHECKPOINT_FORMAT, version: CHECKPOINT_VERSION, seq: checkpoint.seq, writtenAt: new Date().toISOString() })}\n`;
  await replaceFileDurably(path, dirname(path), (handle) => handle.write(line).then(() => undefined), 0o600, fs);
}
