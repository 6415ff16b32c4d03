import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Every TypeScript source file under `dir` (.ts, .tsx), as absolute paths. */
export async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && /\.tsx?$/.test(e.name)).map((e) => join(e.parentPath, e.name));
}
