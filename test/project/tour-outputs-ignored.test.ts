// The folders the docs' examples save into in the clone (`--out ./out`, `--out ./clips`) are in
// .gitignore: running the README tour leaves `git status` clean.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');

test("every folder the docs' commands save into with --out is ignored by git", () => {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md'))
      .map((name) => join('docs', name)),
  ];
  const folders = new Set(
    pages.flatMap((page) =>
      [...readFileSync(join(ROOT, page), 'utf8').matchAll(/--out \.\/([\w-]+)/g)].map((match) => match[1]),
    ),
  );
  assert.ok(
    folders.has('out') && folders.has('clips'),
    `the tour saves into ./out and ./clips (found ${[...folders].join(', ')})`,
  );
  const ignored = new Set(
    readFileSync(join(ROOT, '.gitignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim()),
  );
  for (const folder of [...folders, 'cut']) assert.ok(ignored.has(`/${folder}/`), `.gitignore has /${folder}/`);
});
