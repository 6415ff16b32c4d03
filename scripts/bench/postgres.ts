/**
 * PostgreSQL benchmark (not a test): imgtask on PostgreSQL against what the same database does
 * bare, and against the file store, all in one run on one embedded PostgreSQL server.
 *
 * Anchors, through `pg` with 50 clients in a closed loop (scripts/bench/fixtures/pg-anchors.ts):
 * a plain autocommit INSERT of a task-sized row; the one statement that reserves on an account
 * and inserts the task, on one account and on 50.
 *
 * imgtask: `POST /image/generate` of a model that fails at once (the placeholder with
 * `options.fail`, not retried), over HTTP with autocannon, 50 connections spread over the API
 * processes, each create answered once it is durable; creates/s with p50/p99, and no-op tasks/s
 * end to end (the burst's creates ÷ the time from its start until the last of them settled). For
 * the file store (one process) and for PostgreSQL with 1, 2 and 4 `serve` processes and with one
 * `serve --no-work` beside 2 `worker`s; one account, then 50 (a key each, one per connection).
 * Each figure is printed beside its anchor as a ratio, then the CPU each part used per task (the
 * database's processes, imgtask's, the load generator: where a burst's time went), then the
 * targets, met or not. BENCH_ONLY=<label> runs the file store and that PostgreSQL topology alone.
 *
 * Everything (load generator, processes, database) shares this machine's cores: read the ratios.
 *
 *   npm run bench:postgres     BENCH_SECONDS=5 (each burst and anchor)
 *                              BENCH_FSYNC=on (default, durable) | off (the server's fsync off)
 *                              BENCH_ONLY='4 serve' (one topology, and the file store)
 *                              BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' (node flags of the imgtask processes)
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgresServer } from '../postgres-server.mjs';
import { stopChild } from './fixtures/child.js';
import { type CpuSpent, cpuSpent, sampleCpu } from './fixtures/cpu.js';
import {
  apiProbe,
  type Burst,
  burst,
  type DatabaseCounters,
  databaseProbe,
  type Member,
  type Role,
  type SettleProbe,
  seedAccounts,
  settled,
  startMember,
} from './fixtures/fleet.js';
import { type AnchorFigure, anchorRowBytes, prepareAnchors, runAnchor } from './fixtures/pg-anchors.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const FSYNC = process.env.BENCH_FSYNC ?? 'on';
if (FSYNC !== 'on' && FSYNC !== 'off') throw new Error(`BENCH_FSYNC is on or off, not ${FSYNC}`);
/** One PostgreSQL topology (its label) to run, beside the file store; the targets are then not printed. */
const ONLY = process.env.BENCH_ONLY;
const CONNECTIONS = 50;
const ACCOUNTS = 50;
const CLI = join(import.meta.dirname, '../../bin/imgtask.js');

/** A generate model whose one image fails at once (RESTRICTED_CONTENT is not retried): the task is the whole cost. */
const NOOP_MODEL = {
  provider: 'placeholder',
  price: { perImage: '0.001', perInput: '0' },
  capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  options: { fail: { code: 'RESTRICTED_CONTENT', every: 1 } },
};
const CONFIG = {
  embedded: { preload: false },
  models: { noop: NOOP_MODEL },
  // Creates are what is measured: no refusal for the backlog a burst builds on purpose.
  limits: { maxPendingTasks: 10_000_000, maxQueueDelaySeconds: null },
  // A no-op provider has no capacity of its own: a lane wide enough that the store, not the lane, is what is measured.
  work: { lanes: { placeholder: 64 } },
  log: { level: 'silent' },
};
const BODY = JSON.stringify({ prompt: 'a lighthouse on a cliff at dawn, oil painting', model: 'noop' });

const TOPOLOGIES: { label: string; roles: Role[] }[] = [
  { label: '1 serve', roles: ['all'] },
  { label: '2 serve', roles: ['all', 'all'] },
  { label: '4 serve', roles: ['all', 'all', 'all', 'all'] },
  { label: '1 serve --no-work + 2 worker', roles: ['api', 'work', 'work'] },
];

const began = performance.now();
/** A progress line on stderr, with the seconds since the start. */
const progress = (line: string) =>
  process.stderr.write(`[${Math.round((performance.now() - began) / 1000)} s] ${line}\n`);

interface Row {
  store: 'file' | 'postgres';
  label: string;
  accounts: number;
  burst: Burst;
  creates: number;
  endToEnd: number;
  /** CPU seconds each part used from the burst's start until its last task settled. */
  cpu: CpuSpent;
  /** What the database counted over the same time (PostgreSQL). */
  database?: DatabaseCounters;
}

/** One statement on its own connection; answers its rows. */
async function sql<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A new database on the server (a copy of `template` when given); answers its URL. */
async function database(admin: string, name: string, template?: string): Promise<string> {
  await sql(admin, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `imgtask migrate` on the database, as an operator runs it. */
function migrate(url: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'migrate'], {
      cwd,
      env: { ...process.env, IMGTASK_DATABASE_URL: url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`imgtask migrate exited ${code}: ${err}`))));
  });
}

/**
 * A 2-second warm-up, then a burst per entry of `accountCounts` (on that many accounts), each waited for until every
 * task settled.
 */
async function measure(
  store: Row['store'],
  label: string,
  members: Member[],
  keys: string[],
  probe: SettleProbe,
  accountCounts: number[],
): Promise<Row[]> {
  const urls = members.flatMap((member) => (member.url ? [member.url] : []));
  const shot = (accounts: number, seconds: number) =>
    burst({
      urls,
      path: '/image/generate',
      body: BODY,
      keys: keys.slice(0, accounts),
      connections: CONNECTIONS,
      seconds,
    });
  await shot(1, 2);
  await settled(probe);
  const rows: Row[] = [];
  for (const accounts of accountCounts) {
    const pids = members.map((member) => member.child.pid!);
    const countedBefore = await probe.counters?.();
    const before = sampleCpu(pids);
    const result = await shot(accounts, SECONDS);
    const lastSettled = await settled(probe);
    const cpu = cpuSpent(before, sampleCpu(pids));
    const countedAfter = await probe.counters?.();
    const database = countedBefore &&
      countedAfter && {
        commits: countedAfter.commits - countedBefore.commits,
        rowsWritten: countedAfter.rowsWritten - countedBefore.rowsWritten,
        walBytes: countedAfter.walBytes - countedBefore.walBytes,
      };
    const endToEnd = result.created === 0 ? 0 : result.created / ((lastSettled - result.startedAt) / 1000);
    rows.push({
      store,
      label,
      accounts,
      burst: result,
      creates: result.created / result.seconds,
      endToEnd,
      cpu,
      database,
    });
    progress(
      `${store}, ${label}, ${accounts} account${accounts > 1 ? 's' : ''}: ${Math.round(result.created / result.seconds)} creates/s, ${Math.round(endToEnd)} tasks/s end to end`,
    );
  }
  return rows;
}

async function fileStoreRun(root: string): Promise<Row[]> {
  const dir = join(root, 'file');
  const overrides = { ...CONFIG, store: { driver: 'file' } };
  const keys = await seedAccounts(dir, overrides, 1);
  const member = await startMember(dir, 'all', overrides);
  try {
    return await measure('file', '1 serve', [member], keys, apiProbe(member.url!, keys[0]), [1]);
  } finally {
    await stopChild(member.child, 10_000);
  }
}

async function postgresRun(
  root: string,
  admin: string,
  seed: { dir: string; name: string; keys: string[] },
  topology: (typeof TOPOLOGIES)[number],
  n: number,
): Promise<{ rows: Row[]; url: string }> {
  const url = await database(admin, `bench_fleet_${n}`, seed.name);
  const overrides = { ...CONFIG, store: { driver: 'postgres', postgres: { url, poolSize: 10 } } };
  const members = await Promise.all(
    topology.roles.map(async (role, i) => {
      // Every process of a fleet has the same data-dir keys (API keys and tokens check against them).
      const dir = join(root, `fleet-${n}-${i}`);
      await mkdir(dir, { recursive: true });
      await cp(join(seed.dir, 'keys'), join(dir, 'keys'), { recursive: true });
      return startMember(dir, role, overrides);
    }),
  );
  progress(`postgres, ${topology.label}: started`);
  const probe = await databaseProbe(url);
  try {
    return { rows: await measure('postgres', topology.label, members, seed.keys, probe, [1, ACCOUNTS]), url };
  } finally {
    await probe.close();
    await Promise.all(members.map((member) => stopChild(member.child, 10_000)));
  }
}

const server = await startPostgresServer({ flags: FSYNC === 'off' ? ['-c', 'fsync=off'] : [] });
const root = await mkdtemp(join(tmpdir(), 'imgtask-bench-pg-'));
const rows: Row[] = [];
let anchors: { insert: AnchorFigure; one: AnchorFigure; many: AnchorFigure; rowBytes: number };
let imgtaskRowBytes: number;
let serverInfo: string;
try {
  const admin = server.url;
  const [settings] = await sql<{ version: string; fsync: string }>(
    admin,
    `SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync`,
  );
  serverInfo = `${settings.version}, fsync ${settings.fsync}`;
  progress(`anchors (${SECONDS} s each)`);
  const anchorUrl = await database(admin, 'bench_anchors');
  await prepareAnchors(anchorUrl, ACCOUNTS);
  const anchor = (label: string, reserve: boolean, accounts: number) =>
    runAnchor(anchorUrl, { label, connections: CONNECTIONS, seconds: SECONDS, reserve, accounts });
  const insert = await anchor('plain INSERT, autocommit', false, 1);
  const one = await anchor('reserve+insert, 1 account', true, 1);
  const many = await anchor(`reserve+insert, ${ACCOUNTS} accounts`, true, ACCOUNTS);
  anchors = { insert, one, many, rowBytes: await anchorRowBytes(anchorUrl) };

  progress('file store');
  rows.push(...(await fileStoreRun(root)));

  progress('postgres');
  const seedName = 'bench_seed';
  const seedUrl = await database(admin, seedName);
  await migrate(seedUrl, root);
  const seedDir = join(root, 'seed');
  const keys = await seedAccounts(
    seedDir,
    { ...CONFIG, store: { driver: 'postgres', postgres: { url: seedUrl, poolSize: 2 } } },
    ACCOUNTS,
  );
  let lastUrl = '';
  for (const [n, topology] of TOPOLOGIES.entries()) {
    if (ONLY && topology.label !== ONLY) continue;
    const run = await postgresRun(root, admin, { dir: seedDir, name: seedName, keys }, topology, n);
    rows.push(...run.rows);
    lastUrl = run.url;
  }
  // The mean stored size of imgtask's task rows, beside the anchor's.
  [{ bytes: imgtaskRowBytes }] = await sql<{ bytes: number }>(
    lastUrl,
    'SELECT avg(pg_column_size(t.*))::int AS bytes FROM tasks t',
  );
} finally {
  await server.stop();
  await rm(root, { recursive: true, force: true });
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(1) : String(Math.round(n)));
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(3) : '—');
const file = rows.find((row) => row.store === 'file')!;
const pgRow = (label: string, accounts: number) =>
  rows.find((row) => row.store === 'postgres' && row.label === label && row.accounts === accounts)!;
const anchorFor = (row: Row) => (row.accounts === 1 ? anchors.one : anchors.many);
const accountsLabel = (n: number) => `${n} account${n > 1 ? 's' : ''}`;

console.log(
  `postgres benchmark — node ${process.version}, ${cpus().length} cores, embedded PostgreSQL ${serverInfo}${FSYNC === 'on' ? ' (durable, the default)' : ' (BENCH_FSYNC=off: not durable)'}`,
);
console.log(
  `${SECONDS} s per burst and per anchor, ${CONNECTIONS} connections/clients; load generator, processes and database on the same cores`,
);
console.log(`task rows: anchor ${anchors.rowBytes} B, imgtask ${imgtaskRowBytes} B (mean stored size)\n`);

console.log(`Anchors: the same server driven bare through pg, ${CONNECTIONS} clients, closed loop`);
for (const a of [anchors.insert, anchors.one, anchors.many]) {
  console.log(
    `  ${a.label.padEnd(30)} ${int(a.perSecond).padStart(7)}/s   p50 ${ms(a.p50)} ms, p99 ${ms(a.p99)} ms${a.refused ? `, ${a.refused} refused` : ''}`,
  );
}

console.log(
  `\nCreates: POST /image/generate (a model that fails at once), ${CONNECTIONS} connections over the API processes`,
);
console.log(
  '| store, processes | accounts | creates/s | p50 / p99 ms | anchor reserve+insert, same accounts | ratio | ratio to plain INSERT | non-2xx |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) {
  const a = anchorFor(row);
  console.log(
    `| ${row.store}, ${row.label} | ${row.accounts} | ${int(row.creates)} | ${ms(row.burst.p50)} / ${ms(row.burst.p99)} | ${int(a.perSecond)} | ${ratio(row.creates, a.perSecond)} | ${ratio(row.creates, anchors.insert.perSecond)} | ${row.burst.non2xx + row.burst.errors} |`,
  );
}

console.log('\nNo-op tasks end to end: the burst’s creates ÷ the time until the last of them settled');
console.log('| store, processes | accounts | tasks/s | file store | ratio |');
console.log('|---|---|---|---|---|');
for (const row of rows)
  console.log(
    `| ${row.store}, ${row.label} | ${row.accounts} | ${int(row.endToEnd)} | ${int(file.endToEnd)} | ${ratio(row.endToEnd, file.endToEnd)} |`,
  );

console.log(
  '\nWhere the CPU went: CPU ms per task, from the burst’s start until its last task settled (create, run, settle, claim, notify)',
);
console.log(
  '| store, processes | accounts | database | imgtask processes | load generator | cores busy | commits per task | rows written per task | WAL bytes per task |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
const perCreate = (count: number | undefined, row: Row, digits = 2) =>
  count === undefined || !row.burst.created ? '—' : (count / row.burst.created).toFixed(digits);
const perTask = (seconds: number, row: Row) =>
  row.burst.created ? ((seconds * 1000) / row.burst.created).toFixed(2) : '—';
for (const row of rows) {
  console.log(
    `| ${row.store}, ${row.label} | ${row.accounts} | ${perTask(row.cpu.database, row)} | ${perTask(row.cpu.imgtask, row)} | ${perTask(row.cpu.load, row)} | ${Math.round(row.cpu.busy * 100)} % | ${perCreate(row.database?.commits, row)} | ${perCreate(row.database?.rowsWritten, row)} | ${perCreate(row.database?.walBytes, row, 0)} |`,
  );
}

if (ONLY) process.exit(0);
const one = pgRow('1 serve', 1);
const targets: { what: string; value: number; met: boolean }[] = [
  {
    what: 'PostgreSQL 1 serve, 1 account: creates ≥ 0.5 × reserve+insert anchor (1 account)',
    value: one.creates / anchors.one.perSecond,
    met: one.creates >= 0.5 * anchors.one.perSecond,
  },
  {
    what: 'PostgreSQL 1 serve, 1 account: creates ≥ 0.8 × file store creates',
    value: one.creates / file.creates,
    met: one.creates >= 0.8 * file.creates,
  },
];
const fifty = pgRow('1 serve', ACCOUNTS);
targets.push({
  what: `PostgreSQL 1 serve: creates on ${ACCOUNTS} accounts within 20 % of 1 account`,
  value: fifty.creates / one.creates,
  met: Math.abs(fifty.creates / one.creates - 1) <= 0.2,
});
for (const label of ['2 serve', '4 serve']) {
  for (const accounts of [1, ACCOUNTS]) {
    const base = pgRow('1 serve', accounts);
    const row = pgRow(label, accounts);
    targets.push({
      what: `PostgreSQL ${label}, ${accountsLabel(accounts)}: creates ≥ 1.0 × 1 serve`,
      value: row.creates / base.creates,
      met: row.creates >= base.creates,
    });
    targets.push({
      what: `PostgreSQL ${label}, ${accountsLabel(accounts)}: tasks end to end ≥ 1.0 × 1 serve`,
      value: row.endToEnd / base.endToEnd,
      met: row.endToEnd >= base.endToEnd,
    });
  }
}
for (const accounts of [1, ACCOUNTS]) {
  const row = pgRow('1 serve', accounts);
  targets.push({
    what: `PostgreSQL 1 serve, ${accountsLabel(accounts)}: no-op tasks end to end ≥ 0.5 × file store`,
    value: row.endToEnd / file.endToEnd,
    met: row.endToEnd >= 0.5 * file.endToEnd,
  });
}
console.log('\nTargets (ratios in this run)');
for (const target of targets)
  console.log(`  ${target.met ? 'met    ' : 'not met'}  ${target.value.toFixed(3)}  ${target.what}`);
console.log(`\n(${Math.round((performance.now() - began) / 1000)} s in all)`);
process.exit(0);
