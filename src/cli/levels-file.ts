import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { jsonOption, UsageError } from './output.js';

/**
 * The custom rating levels in the JSON file given for `option` (--levels of rate, --rating of
 * generate, which also takes nsfw_sfw); UsageError when there is no such file or it is not JSON.
 */
export async function levelsFile(file: string, option: '--levels' | '--rating'): Promise<unknown> {
  if (!existsSync(file))
    throw new UsageError(
      `${option} must be ${option === '--rating' ? 'nsfw_sfw or ' : ''}a JSON file of custom levels; there is no file ${file}`,
    );
  return jsonOption(await readFile(file, 'utf8'), `${option} file`);
}
