#!/usr/bin/env node
// The `imgtask` command. It runs the compiled CLI in dist/, which `npm run build` makes (and
// `npm install` runs the build through `prepare`). In a clone, where src/ sits beside dist/, a
// dist/ that is missing or older than any source file is never run: the sources run through tsx
// instead (the same behaviour, a slower start), with a one-line note when stderr is a terminal.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// package.json's engines, checked here: npm only warns about it (a dependency's stricter declaration must not refuse the install).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`imgtask needs Node 20.19 or newer; this is Node ${process.versions.node}\n`);
  process.exit(1);
}

const built = new URL('../dist/cli/main.js', import.meta.url);
const sources = new URL('../src/', import.meta.url);

/** The newest modification time among the files under `dir` (ms since the epoch). */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(`${entry.parentPath}/${entry.name}`).mtimeMs);
  }
  return latest;
}

const stale = existsSync(sources) && (!existsSync(built) || statSync(built).mtimeMs < newest(sources));
if (stale) {
  if (process.stderr.isTTY)
    process.stderr.write(
      'imgtask: dist/ is missing or older than src/, running the sources (npm run build for a fast start)\n',
    );
  const { register } = await import('tsx/esm/api');
  // The clone's tsconfig (react-jsx for the Ink views), not one found from the folder imgtask is run in.
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  await import('../src/cli/main.ts');
} else {
  await import(built.href);
}
