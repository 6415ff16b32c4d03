// Helpers for the store's crash and corruption tests: they edit the files the way a crash,
// a bad disk or an operator would, and check that a refused start leaves them as they were.
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { tempDir } from '../../../helpers/temp-dir.js';

/**
 * Copies a live store's files (all but its LOCK) to a fresh folder: what a process killed at
 * this instant leaves behind, as long as the kernel survives.
 */
export async function crashImage(t: TestContext, dir: string): Promise<string> {
  const image = await tempDir(t);
  await cp(dir, image, { recursive: true });
  await rm(join(image, 'LOCK'), { force: true });
  return image;
}

/** Every file of a store folder and its bytes, to show that a refused start changed nothing. */
export async function filesOf(dir: string): Promise<Record<string, Buffer>> {
  const files: Record<string, Buffer> = {};
  for (const name of (await readdir(dir)).sort()) files[name] = await readFile(join(dir, name));
  return files;
}

/** The journal's lines, each with its newline. */
export async function journalLines(dir: string): Promise<string[]> {
  return (await readFile(join(dir, 'journal.jsonl'), 'utf8')).split(/(?<=\n)/);
}
