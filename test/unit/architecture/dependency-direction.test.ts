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
  providers: ['domain', 'net', 'media'],
  destinations: ['domain', 'net'],
  services: ['domain', 'media', 'store'],
  engine: ['domain', 'store', 'services'],
  webhooks: ['domain', 'net', 'services', 'engine'],
  tasks: ['domain', 'media'],
  api: ['domain', 'services', 'engine', 'tasks'],
  app: ['domain', 'media', 'config', 'store', 'net', 'providers', 'destinations', 'webhooks', 'services', 'engine', 'tasks', 'api', 'client'],
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
  providers: ['config'],
  services: ['providers', 'destinations', 'config'],
  webhooks: ['store', 'config'],
  tasks: ['services', 'engine', 'providers', 'config'],
  engine: ['config'],
  api: ['config', 'webhooks'],
  client: ['api'],
};

/**
 * Within a type-only edge, the files that may be seen: task types see the services' ports and
 * the shapes the composition root hands them; the client sees the route files (their schemas'
 * types), never the API's internals; config is seen as `Config` and `ConfigSource` only.
 */
const TYPE_ONLY_FILES: Record<string, Record<string, RegExp>> = {
  tasks: { services: /^services\/(ports|images|videos|destinations)\.ts$/, engine: /^engine\/task-types\.ts$/ },
  client: { api: /^api\/routes\// },
  '*': { config: /^config\/(schema|source)\.ts$/ },
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
      const target = relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
      const to = target.split('/')[0];
      if (to === from) continue;
      const typeOnly = Boolean(match[2]);
      const files = TYPE_ONLY_FILES[from]?.[to] ?? TYPE_ONLY_FILES['*'][to];
      const ok = ALLOWED[from].includes(to) || (typeOnly && (TYPE_ONLY_ALLOWED[from] ?? []).includes(to) && (!files || files.test(target)));
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
