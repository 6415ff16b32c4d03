import assert from 'node:assert/strict';
import { basename, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { sourceFiles } from '../helpers/source-files.js';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Where a file is named for its resource, endpoint, command group or console feature, so the same
 * name stands once per layer (docs/development.md, "Layout"): records and repository contracts, the
 * two store implementations, services, operator actions, commands, routes, console feature routes.
 */
const BY_LAYER = [
  /^store\/(records|repos)\/[^/]+$/,
  /^store\/(file|postgres)\/repos\/[^/]+$/,
  /^services\/[^/]+$/,
  /^app\/admin\/[^/]+$/,
  /^cli\/commands\/[^/]+$/,
  /^api\/routes\/.+$/,
  /^console\/[^/]+\/routes\.tsx$/,
];

/** Names used by more than one file where at most one of them may be: every other file name is used once. */
function clashes(files: string[]): string[] {
  const outside = new Map<string, string[]>();
  for (const file of files) {
    if (BY_LAYER.some((pattern) => pattern.test(file))) continue;
    const name = basename(file);
    outside.set(name, [...(outside.get(name) ?? []), file]);
  }
  return [...outside.values()].filter((paths) => paths.length > 1).map((paths) => paths.sort().join(' = '));
}

test('no two source files share a name, but for the files named for their resource, endpoint or command', async () => {
  assert.deepEqual(clashes((await sourceFiles(SRC)).map((file) => relative(SRC, file))), []);
});

test('the name check finds two files of one name outside the by-layer places', () => {
  assert.deepEqual(clashes(['engine/engine.ts', 'store/file/journal/engine.ts', 'services/accounts.ts']), [
    'engine/engine.ts = store/file/journal/engine.ts',
  ]);
  assert.deepEqual(clashes(['services/accounts.ts', 'store/repos/accounts.ts', 'cli/commands/accounts.ts']), []);
});
