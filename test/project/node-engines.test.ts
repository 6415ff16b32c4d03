// Every installed package supports the running Node, by its own `engines` declaration, unless it is
// listed here with why it runs anyway. This replaces `engine-strict` in .npmrc, which refused the
// whole install for one package whose declaration is stricter than its code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import semver from 'semver';

const ROOT = join(import.meta.dirname, '../..');

/** Packages that declare a newer Node than they need, each with the test that shows it works on ours. */
const RUNS_ANYWAY: Record<string, string> = {
  // Declares node >= 22; its Node-API binary loads, signs and reads on Node 20
  // (test/unit/services/provenance*.test.ts).
  'node_modules/@contentauth/c2pa-node': '>=22',
};

test('every installed package supports the running Node, or is listed with why it runs anyway', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
  };
  const node = process.versions.node;
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
    if (!range || path === '' || entry.optional) continue;
    if (semver.satisfies(node, range, { includePrerelease: true })) continue;
    if (RUNS_ANYWAY[path] === range) continue;
    refused.push(`${path} needs node ${range}`);
  }
  assert.deepEqual(refused, [], `Node ${node} is not supported by: ${refused.join('; ')}`);
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.ok(semver.satisfies(node, root.engines.node), `imgtask itself needs node ${root.engines.node}`);
});

test('a package listed as running anyway is still installed with that declaration (the list does not go stale)', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } }>;
  };
  for (const [path, range] of Object.entries(RUNS_ANYWAY))
    assert.equal(lock.packages[path]?.engines?.node, range, path);
});
