import { existsSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environment } from '../config/environment.js';

/** This CLI's entry: bin/imgtask.js at the package's root (this file is in src/cli/ or dist/cli/). */
const ENTRY = fileURLToPath(new URL('../../bin/imgtask.js', import.meta.url));

const realpath = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** A word as a POSIX shell reads it back: quoted only when it must be. */
export const shellWord = (word: string): string =>
  /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

export interface Invocation {
  /** The working folder the commands are typed in. */
  cwd: string;
  /** PATH as the user's shell has it. */
  path: string | undefined;
  /** The script node was started with (process.argv[1]): bin/imgtask.js as typed, or a link to it. */
  script: string | undefined;
}

/**
 * How a user types this same CLI in another terminal in `cwd`, so that what it tells them to
 * run works as printed, at once: `imgtask` when that is this CLI on their PATH (npm link, a
 * global install, the clone's bin/ on PATH); `npx imgtask` when it is a dependency of the
 * project in `cwd`; else node and the path of bin/imgtask.js (a clone: npm never links a
 * package's own bin, and `npx imgtask` there first installs the clone into npm's cache and
 * builds it, half a minute or more). The folders npm adds to PATH while it runs a script
 * (node_modules/.bin) are passed over: the user's own terminal does not have them.
 */
export function howToRun({ cwd, path, script }: Invocation): string {
  const entry = realpath(ENTRY) ?? ENTRY;
  const ours = (candidate: string) => existsSync(candidate) && realpath(candidate) === entry;
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir || dir.endsWith(`${sep}node_modules${sep}.bin`) || dir.endsWith('/node_modules/.bin')) continue;
    if (ours(join(dir, 'imgtask'))) return 'imgtask';
  }
  if (ours(join(cwd, 'node_modules', '.bin', 'imgtask'))) return 'npx imgtask';
  // The path as it was typed when it leads here (a clone under a symlinked folder stays as the user knows it).
  const shown = script && realpath(script) === entry ? resolve(script) : entry;
  const near = relative(cwd, shown);
  return `node ${shellWord(near && !near.startsWith('..') && !isAbsolute(near) ? near : shown)}`;
}

/** `howToRun` for this process. */
export const thisCli = (): string =>
  howToRun({ cwd: process.cwd(), path: environment.path(), script: process.argv[1] });
