import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '../../../src');

/**
 * Which top-level folders of src each folder may import (shared/STYLE.md, "Layout and the
 * one-way dependency rule"). Arrows point one way; `domain` imports nothing of ours; `app` is
 * the composition root. A folder that only needs another's shapes gets it type-only.
 */
const ALLOWED: Record<string, string[]> = {
  domain: [],
  media: ['domain'],
  config: ['domain'],
  store: ['domain'],
  net: ['domain', 'config'],
  providers: ['domain', 'net'],
  destinations: ['domain', 'net'],
  webhooks: ['domain', 'net'],
  services: ['domain', 'media', 'store'],
  tasks: ['domain', 'media'],
  worker: ['domain', 'services', 'tasks'],
  api: ['domain', 'services', 'tasks'],
  app: ['domain', 'media', 'config', 'store', 'net', 'providers', 'destinations', 'webhooks', 'services', 'tasks', 'worker', 'api', 'client'],
  client: ['domain'],
  tui: ['domain', 'client'],
  cli: ['domain', 'config', 'client', 'app', 'tui'],
};
/**
 * Type-only imports allowed on top: drivers and config are seen by services and task types
 * through their shapes only (the composition root hands them the real ones, the config as a
 * ConfigSource); task types use
 * services' ports; the client describes the API's shapes.
 */
const TYPE_ONLY_ALLOWED: Record<string, string[]> = {
  providers: ['media', 'config'],
  services: ['providers', 'destinations', 'webhooks', 'config'],
  tasks: ['services', 'providers', 'config'],
  worker: ['config'],
  api: ['config'],
  client: ['api'],
};

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : Promise.resolve(/\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []))));
  return nested.flat();
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

test('imports between source folders follow the one-way dependency rule', async () => {
  const violations: string[] = [];
  for (const file of await sourceFiles(SRC)) {
    const from = relative(SRC, file).split('/')[0];
    assert.ok(from in ALLOWED, `src/${from} is not a known layer: add it to the rule`);
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[3] ?? match[4];
      if (!specifier.startsWith('.')) continue;
      const to = relative(SRC, resolve(dirname(file), specifier)).split('/')[0];
      if (to === from) continue;
      const typeOnly = Boolean(match[2]);
      const ok = ALLOWED[from].includes(to) || (typeOnly && (TYPE_ONLY_ALLOWED[from] ?? []).includes(to));
      if (!ok) violations.push(`${relative(SRC, file)} imports ${specifier} (${from} → ${to})`);
    }
  }
  assert.deepEqual(violations, []);
});

test('only src/config reads process.env', async () => {
  const readers = [];
  for (const file of await sourceFiles(SRC)) {
    if (relative(SRC, file).startsWith('config/')) continue;
    if (/process\.env/.test(await readFile(file, 'utf8'))) readers.push(relative(SRC, file));
  }
  assert.deepEqual(readers, []);
});
