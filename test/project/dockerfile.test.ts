import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');

/** What the image's runtime stage copies in: the targets of its COPY lines (after the last FROM). */
function runtimeCopies(dockerfile: string): string[] {
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  return [...runtime.matchAll(/^COPY (?:--from=\S+ )?(.+)$/gm)].flatMap((match) => {
    const words = match[1].trim().split(/\s+/);
    return words.slice(0, -1).map((source) => source.replace(/^\/app\//, ''));
  });
}

test("the image's runtime stage holds every file the package ships (the console's files, the SQL migrations…)", () => {
  const { files } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const copied = runtimeCopies(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  assert.deepEqual(
    files.filter((entry) => !copied.includes(entry)),
    [],
  );
});

test('the build stage copies only files that exist', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const build = dockerfile.slice(0, dockerfile.lastIndexOf('\nFROM '));
  const sources = [...build.matchAll(/^COPY (.+)$/gm)].flatMap((match) => match[1].trim().split(/\s+/).slice(0, -1));
  for (const source of sources) assert.ok(existsSync(join(ROOT, source)), `COPY ${source}: no such file`);
});
