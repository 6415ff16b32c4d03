import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { sourceFiles } from '../helpers/source-files.js';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Which top-level folders of src each folder may import (shared/STYLE.md, "Layout and the
 * one-way dependency rule"). Arrows point one way; `domain` imports nothing of ours; `app` is
 * the composition root, and only the CLI imports it. The engine (the task lifecycle) stands on
 * the services; webhook delivery listens to the engine's settlements and never the other way;
 * the API calls both. A folder that only needs another's shapes gets it type-only.
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
  'task-types': ['domain', 'media'],
  api: ['domain', 'services', 'engine', 'task-types'],
  app: [
    'domain',
    'media',
    'config',
    'store',
    'net',
    'providers',
    'destinations',
    'webhooks',
    'services',
    'engine',
    'task-types',
    'api',
    'console',
    'client',
  ],
  // The web console: pages over the same services and engine as the API, with the API's route schemas and errors.
  console: ['domain', 'services', 'engine', 'task-types', 'api'],
  client: ['domain'],
  tui: ['domain', 'client'],
  cli: ['domain', 'config', 'client', 'app', 'tui'],
};
/**
 * Type-only imports allowed on top: drivers and config are seen by services, the engine and
 * task types through their shapes only (the composition root hands them the real ones, the
 * config as a ConfigSource); task types use the services' ports and the engine's task type
 * definition; webhook delivery sees the store through its shapes; the
 * client describes the API's shapes.
 */
const TYPE_ONLY_ALLOWED: Record<string, string[]> = {
  providers: ['config'],
  services: ['providers', 'destinations', 'config'],
  webhooks: ['store', 'config'],
  'task-types': ['services', 'engine', 'providers', 'config'],
  engine: ['config'],
  api: ['config'],
  console: ['config', 'store'],
  client: ['api'],
};

/**
 * Within an allowed edge, the only files that may be seen: webhook delivery takes the engine's task view (an event
 * carries the values of the task endpoints), nothing else of it.
 */
const FILES: Record<string, Record<string, RegExp>> = {
  webhooks: { engine: /^engine\/task-views\.ts$/ },
};

/**
 * Within a type-only edge, the files that may be seen: task types see the services' ports and
 * the shapes the composition root hands them; the client sees the route files (their schemas'
 * types), never the API's internals; config is seen as `Config` and `ConfigSource` only.
 */
const TYPE_ONLY_FILES: Record<string, Record<string, RegExp>> = {
  'task-types': {
    services: /^services\/(ports|image-library|video-library|destinations)\.ts$/,
    engine: /^engine\/task-registry\.ts$/,
  },
  client: { api: /^api\/routes\// },
  '*': { config: /^config\/(schema|source)\.ts$/ },
};

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
      const allowed = ALLOWED[from].includes(to) && (FILES[from]?.[to]?.test(target) ?? true);
      const ok =
        allowed || (typeOnly && (TYPE_ONLY_ALLOWED[from] ?? []).includes(to) && (!files || files.test(target)));
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

/**
 * Nothing outside the store and the engine's intake branches on how tasks reach a runner: the
 * store's shared-queue capability (signals between processes, task leases) is read only where
 * the intake is picked and built (src/engine/intake/), so the composition root and the rest
 * work the same on either backend.
 */
test("only the engine's intake reads the store's shared queue (signals, leases)", async () => {
  const SHARED = /\.shared\b|\bstore\.signals\b|\b(SharedQueueStore|StoreSignals|LeaseRepo)\b/;
  const readers = [];
  for (const file of await sourceFiles(SRC)) {
    const path = relative(SRC, file);
    if (path.startsWith('store/') || path.startsWith('engine/intake/')) continue;
    if (SHARED.test(await readFile(file, 'utf8'))) readers.push(path);
  }
  assert.deepEqual(readers, []);
});

/** The relative imports of every source file, resolved to source files (type-only ones too). */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  const files = await sourceFiles(SRC);
  const known = new Set(files);
  for (const file of files) {
    const targets: string[] = [];
    for (const match of (await readFile(file, 'utf8')).matchAll(IMPORT)) {
      const specifier = match[3] ?? match[4];
      if (!specifier.startsWith('.')) continue;
      const base = resolve(dirname(file), specifier).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`].find((candidate) => known.has(candidate));
      if (target && target !== file) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Groups of files that import each other round a circle (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(relative(SRC, member));
    } while (member !== file);
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** A circle makes load order matter and hides which file owns a shape: shared types get a module of their own. */
test('no source files import each other in a circle', async () => {
  assert.deepEqual(circles(await importGraph()), []);
});

test('the circle finder finds a circle', () => {
  const a = join(SRC, 'a.ts');
  const b = join(SRC, 'b.ts');
  const c = join(SRC, 'c.ts');
  assert.deepEqual(
    circles(
      new Map([
        [a, [b]],
        [b, [a, c]],
        [c, []],
      ]),
    ),
    [['a.ts', 'b.ts']],
  );
});
