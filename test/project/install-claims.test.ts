// imgtask is not on the npm registry: the docs tell a newcomer what works (a clone), never to
// install it by name, and say that the first install takes a few minutes.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pages = (): string[] => [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

test('no page says to install imgtask from the registry; getting started says how long the install takes', () => {
  for (const page of pages()) {
    assert.doesNotMatch(
      read(page),
      /npm (install|i) (-g|--global) imgtask\b|from the registry,? `?npm/i,
      `${page} sends a newcomer to a package that is not published`,
    );
  }
  const installing = /## Installing\n([\s\S]*?)\n## /.exec(read('docs/getting-started.md'))?.[1] ?? '';
  assert.match(installing, /not published on the npm registry/);
  assert.match(installing, /a few minutes/);
  assert.match(installing, /npm link/);
  assert.match(installing, /node bin\/imgtask\.js/);
});
