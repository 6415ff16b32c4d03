/**
 * Who runs next (not a test): the lane order (fair share between accounts, weights, priority),
 * model affinity, how busy the engine is kept, and what the order costs a create, on the file
 * store and on PostgreSQL. A fake AUTOMATIC1111-protocol engine runs in its own process
 * (fixtures/fake-engine.ts) and records every job; imgtask (fixtures/scheduling-server.ts) runs in
 * fresh processes with a model `sd` on one server of it (`concurrency: 2`, two slots), and models
 * m0, m1, m2 on a lane of two more (`left+right`, one slot each). Every figure is read at the
 * engine and printed beside an anchor measured in the same run:
 *  - burst: A posts 60 (and 1,000) one-image tasks, B one 0.3 s after A's creates were answered;
 *    B's wait in items (A's items started between B's create answered and B's start; target ≤ 2)
 *    and create to settled, beside B's task alone on the idle service;
 *  - priority: behind what is left of the 1,000, A posts one task at priority 5; items started
 *    before it (target ≤ 1);
 *  - fairness: ten accounts each post a backlog (staggered by 100 ms); Jain's index of the items
 *    each completed while all had work queued (≥ 0.95), beside the lane's rate against the
 *    engine's capacity; two accounts of weights 3 and 1, the ratio of their items (3 within 10 %);
 *  - saturation: utilisation at the engine (busy slot-time ÷ slots × first start to last end)
 *    with 150 ms items (the 60-burst; ≥ 0.98) and 20 items of 1 s (≥ 0.995), beside a bare
 *    client of the same engine in its own process (fixtures/bare-engine-client.ts: what this
 *    machine's latency between processes leaves idle with no service in between);
 *  - affinity (a process of its own): 30 items over the two one-slot servers, 0.2 ± 0.05 s an
 *    item and 1 s to switch checkpoints, the checkpoints strictly alternating, then shuffled:
 *    two imgtask models (m1, m2) against one model (m0) whose items carry the same checkpoints,
 *    so the lane cannot tell them apart (≥ 1.6 × faster); beside it, the time computed for a
 *    placement blind to models (a switch on half the items);
 *  - cost: creates/s (autocannon, 50 connections, 50 accounts) with 100,000 one-item tasks
 *    queued over 1,000 accounts against nothing queued, the engine running (target ≥ 0.9 ×),
 *    and imgtask's CPU per create; on PostgreSQL with 2 processes claiming.
 * The machine is shared and noisy: read the ratios.
 *
 *   npm run bench:scheduling   BENCH_STORES=file,postgres
 *                              BENCH_SCENARIOS=burst,priority,fairness,saturation,affinity,cost
 *                              BENCH_BIG_BURST=1000  BENCH_BACKLOG=100000  BENCH_BACKLOG_ACCOUNTS=1000
 *                              BENCH_SECONDS=5 (each of the four create bursts, after a 2 s warm-up)
 *                              BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' (node flags of the imgtask processes)
 */
import { cpus } from 'node:os';
import { startPostgresServer } from '../postgres-server.mjs';
import { cpuSpent, sampleCpu } from './fixtures/cpu.js';
import { jain } from './fixtures/engine-records.js';
import { burst as createBurst } from './fixtures/fleet.js';
import {
  type AffinityFigures,
  alone,
  type BurstFigures,
  body,
  burst,
  checkpointRun,
  type SaturationFigures,
  type ShareFigures,
  type Stage,
  saturated,
  saturation,
  shares,
} from './fixtures/scheduling-scenarios.js';
import {
  bareJobs,
  type FakeEngine,
  type Imgtask,
  migratedTemplate,
  type StoreChoice,
  startFakeEngine,
  startImgtask,
} from './fixtures/scheduling-stack.js';

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter(Boolean);
const STORES = list('BENCH_STORES', 'file,postgres');
const SCENARIOS = new Set(list('BENCH_SCENARIOS', 'burst,priority,fairness,saturation,affinity,cost'));
const BIG_BURST = Number(process.env.BENCH_BIG_BURST ?? 1000);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
const BACKLOG_ACCOUNTS = Number(process.env.BENCH_BACKLOG_ACCOUNTS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
/** The engine: ms per image, and what a model switch adds (affinity only). */
const ITEM_MS = 150;
const FAIR_ITEM_MS = 60;
const SLOW_ITEM_MS = 1000;
const SLOW_ITEMS = 20;
/**
 * Item times vary by ±jitterMs (as a GPU's do): which server frees first is then not a tie the lane order always breaks
 * one way.
 */
const AFFINITY = { itemMs: 200, switchMs: 1000, jitterMs: 50, items: 30 };
/**
 * The checkpoints of the affinity runs, in queue order: strictly alternating, and a shuffle of as many of each (a fixed
 * seed).
 */
const CHECKPOINTS = {
  alternating: Array.from({ length: AFFINITY.items }, (_, i) => (i % 2 === 0 ? 'm1' : 'm2')),
  mixed: shuffled(Array.from({ length: AFFINITY.items }, (_, i) => (i < AFFINITY.items / 2 ? 'm1' : 'm2'))),
};
const FAIR = { accounts: 10, each: 30, staggerMs: 100 };

/** A Fisher–Yates shuffle driven by a fixed linear congruential sequence: the same order every run. */
function shuffled<T>(items: T[]): T[] {
  let state = 12345;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
const WEIGHTED = { each: 120 };

const began = performance.now();
const progress = (line: string) =>
  process.stderr.write(`[${Math.round((performance.now() - began) / 1000)} s] ${line}\n`);

/** imgtask's config: the fake engine's servers as AUTOMATIC1111 providers, and the models on them. */
function imgtaskConfig(urls: string[]) {
  const a1111 = (baseUrl: string, concurrency: number) => ({ type: 'automatic1111', baseUrl, concurrency, steps: 1 });
  const model = (providers: string[]) => ({
    providers,
    price: { perImage: '0.001', perInput: '0' },
    capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false },
  });
  return {
    providers: { engine: a1111(urls[0], 2), left: a1111(urls[1], 1), right: a1111(urls[2], 1) },
    models: {
      sd: model(['engine']),
      m0: model(['left', 'right']),
      m1: model(['left', 'right']),
      m2: model(['left', 'right']),
    },
    // What is measured is the order and its cost: no refusal for the backlogs built on purpose.
    limits: { maxPendingTasks: 10_000_000, maxQueueDelaySeconds: null, requestsPerMinutePerKey: null },
    log: { level: 'silent' },
  };
}

interface CostFigures {
  perSecond: number;
  p99: number;
  /** How long the backlog took to make (0: none). */
  backlogSeconds: number;
  /** CPU ms of imgtask's processes per create during the burst. */
  cpuMs: number;
}

interface StoreFigures {
  aloneMs?: number;
  burst60?: BurstFigures;
  burstBig?: BurstFigures;
  saturation150?: SaturationFigures;
  saturation1s?: SaturationFigures;
  fair?: ShareFigures;
  weighted?: ShareFigures;
  affinity?: Partial<Record<'alternating' | 'mixed', { with: AffinityFigures; without: AffinityFigures }>>;
  bare150?: SaturationFigures;
  bare1s?: SaturationFigures;
  cost?: { processes: number; empty: CostFigures; backlog: CostFigures };
}

const fairAccounts = Array.from({ length: FAIR.accounts }, (_, i) => `F${i}`);

/** The scenarios that share one imgtask process, each on an idle lane. */
async function mainStage(engine: FakeEngine, store: StoreChoice, config: object, out: StoreFigures): Promise<void> {
  await engine.settings({ itemMs: ITEM_MS, switchMs: 0, jitterMs: 0, slots: [2, 1, 1] });
  const imgtask = await startImgtask(store, config);
  try {
    const keys = await imgtask.seed([
      { name: 'A', maxPriority: 5 },
      { name: 'B' },
      ...fairAccounts.map((name) => ({ name })),
      { name: 'W3', weight: 3 },
      { name: 'W1', weight: 1 },
    ]);
    const stage: Stage = { engine, imgtask, keys };
    // Warms the path (first compile of the routes, the provider, sharp) before the anchor.
    await alone(stage, 1);
    out.aloneMs = await alone(stage, 5);
    progress(`B alone: ${Math.round(out.aloneMs)} ms`);
    if (SCENARIOS.has('burst') || SCENARIOS.has('saturation')) {
      out.bare150 = saturation(await bareJobs(engine, 2, 60), 2);
      out.burst60 = await burst(stage, 60);
      out.saturation150 = saturation(out.burst60.records, 2);
      progress(
        `burst of 60: B waited ${out.burst60.waitItems} items; utilisation ${out.saturation150.value.toFixed(4)}`,
      );
    }
    if (SCENARIOS.has('saturation')) {
      await engine.settings({ itemMs: SLOW_ITEM_MS });
      out.bare1s = saturation(await bareJobs(engine, 2, SLOW_ITEMS), 2);
      out.saturation1s = await saturated(stage, SLOW_ITEMS, 2);
      progress(`1 s items: utilisation ${out.saturation1s.value.toFixed(4)}`);
    }
    if (SCENARIOS.has('fairness')) {
      await engine.settings({ itemMs: FAIR_ITEM_MS });
      out.fair = await shares(stage, fairAccounts, FAIR.each, FAIR.staggerMs);
      out.weighted = await shares(stage, ['W3', 'W1'], WEIGHTED.each, 0);
      progress(`fairness: Jain ${jain(out.fair.counts).toFixed(4)}; weights ${out.weighted.counts.join(':')}`);
    }
  } finally {
    await imgtask.stop();
    await engine.idle();
  }
}

/** Model affinity, in a process of its own: its lane (left+right) the only one it has run. */
async function affinityStage(engine: FakeEngine, store: StoreChoice, config: object, out: StoreFigures): Promise<void> {
  await engine.settings({
    itemMs: AFFINITY.itemMs,
    switchMs: AFFINITY.switchMs,
    jitterMs: AFFINITY.jitterMs,
    slots: [2, 1, 1],
  });
  const imgtask = await startImgtask(store, config);
  try {
    const stage: Stage = { engine, imgtask, keys: await imgtask.seed([{ name: 'A' }]) };
    out.affinity = {};
    for (const order of ['alternating', 'mixed'] as const) {
      const checkpoints = CHECKPOINTS[order];
      // Two imgtask models, one per checkpoint (the lane knows which is which); then one model for both (it cannot).
      const withAffinity = await checkpointRun(stage, checkpoints, AFFINITY.switchMs, (i) => checkpoints[i]);
      const without = await checkpointRun(stage, checkpoints, AFFINITY.switchMs, () => 'm0');
      out.affinity[order] = { with: withAffinity, without };
      progress(
        `affinity, ${order}: ${Math.round(withAffinity.ms)} ms (${withAffinity.switches} switches) against ${Math.round(without.ms)} ms (${without.switches})`,
      );
    }
  } finally {
    await imgtask.stop();
    await engine.idle();
  }
}

/** A's burst of BIG_BURST with B behind it, then a priority-5 task; the process is killed with its backlog. */
async function bigBurstStage(engine: FakeEngine, store: StoreChoice, config: object, out: StoreFigures): Promise<void> {
  await engine.settings({ itemMs: ITEM_MS, switchMs: 0, jitterMs: 0, slots: [2, 1, 1] });
  const imgtask = await startImgtask(store, config);
  try {
    const keys = await imgtask.seed([{ name: 'A', maxPriority: 5 }, { name: 'B' }]);
    out.burstBig = await burst({ engine, imgtask, keys }, BIG_BURST, { priority: SCENARIOS.has('priority') });
    progress(
      `burst of ${BIG_BURST}: B waited ${out.burstBig.waitItems} items; priority task ${out.burstBig.priority?.waitItems ?? '—'}`,
    );
  } finally {
    await imgtask.stop();
    await engine.idle();
  }
}

/**
 * Creates/s with nothing queued and with BACKLOG items queued over BACKLOG_ACCOUNTS accounts: two
 * deployments side by side (fresh processes each, the engine running for both), their bursts
 * interleaved (nothing queued, backlog, backlog, nothing queued) so that what else this machine
 * runs weighs on both alike. The bursts themselves queue work too: "nothing queued" is what they
 * add, on both.
 */
async function costStage(engine: FakeEngine, store: StoreChoice, config: object, out: StoreFigures): Promise<void> {
  const processes = store.driver === 'postgres' ? 2 : 1;
  // Both deployments' processes use the engine's first server, two slots each.
  await engine.settings({ itemMs: ITEM_MS, switchMs: 0, jitterMs: 0, slots: [2 * 2 * processes, 1, 1] });
  const accounts = Array.from({ length: BACKLOG_ACCOUNTS }, (_, i) => ({ name: `C${i}` }));
  const sides: {
    imgtask: Imgtask;
    keys: string[];
    created: number;
    seconds: number;
    cpu: number;
    p99: number;
    backlogSeconds: number;
  }[] = [];
  try {
    for (const queued of [0, BACKLOG]) {
      const imgtask = await startImgtask(store, config, processes);
      const side = { imgtask, keys: [] as string[], created: 0, seconds: 0, cpu: 0, p99: 0, backlogSeconds: 0 };
      sides.push(side);
      const seeded = [...(await imgtask.seed(accounts)).values()];
      side.keys = seeded.slice(0, CONNECTIONS).map((k) => k.key);
      if (queued > 0) {
        progress(`cost: ${queued.toLocaleString('en-US')} items over ${seeded.length} accounts`);
        side.backlogSeconds = await imgtask.backlog(seeded, queued, body('C/backlog'));
      }
    }
    const shot = (side: (typeof sides)[number], seconds: number) =>
      createBurst({
        urls: side.imgtask.urls,
        path: '/image/generate',
        body: JSON.stringify(body('C/create')),
        keys: side.keys,
        connections: CONNECTIONS,
        seconds,
      });
    for (const side of sides) await shot(side, 2);
    for (const i of [0, 1, 1, 0]) {
      const side = sides[i];
      const before = sampleCpu(side.imgtask.pids);
      const result = await shot(side, SECONDS);
      // imgtask's own CPU (its processes, from /proc): less swayed than the rate by what else the cores run.
      side.cpu += cpuSpent(before, sampleCpu(side.imgtask.pids)).imgtask;
      side.created += result.created;
      side.seconds += result.seconds;
      side.p99 = Math.max(side.p99, result.p99);
      if (result.non2xx + result.errors > 0) progress(`cost: ${result.non2xx} non-2xx, ${result.errors} errors`);
      progress(
        `cost, ${i === 0 ? 'nothing' : BACKLOG} queued: ${Math.round(result.created / result.seconds)} creates/s`,
      );
    }
  } finally {
    await Promise.all(sides.map((side) => side.imgtask.stop()));
    await engine.idle();
  }
  const figures = sides.map((side) => ({
    perSecond: side.created / side.seconds,
    p99: side.p99,
    backlogSeconds: side.backlogSeconds,
    cpuMs: (side.cpu * 1000) / Math.max(1, side.created),
  }));
  out.cost = { processes, empty: figures[0], backlog: figures[1] };
}

interface Target {
  store: string;
  what: string;
  figure: string;
  anchor: string;
  ratio: string;
  target: string;
  met: boolean;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const x = (n: number) => `${n.toFixed(3)} ×`;
const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;

/** The rows of one store's table: each figure beside its anchor. */
function rowsOf(store: string, f: StoreFigures): Target[] {
  const rows: Target[] = [];
  const add = (row: Omit<Target, 'store'>) => rows.push({ store, ...row });
  const capacity = (itemMs: number) => (2 * 1000) / itemMs;
  const aloneText = f.aloneMs === undefined ? '—' : `B alone on the idle service: ${int(f.aloneMs)} ms`;
  for (const [count, figures] of [
    [60, f.burst60],
    [BIG_BURST, f.burstBig],
  ] as const) {
    if (!figures || !SCENARIOS.has('burst')) continue;
    add({
      what: `B behind A's burst of ${int(count)}: B's wait in items (create to settled)`,
      figure: `${items(figures.waitItems)} (${int(figures.settledMs)} ms)`,
      anchor: aloneText,
      ratio: f.aloneMs ? x(figures.settledMs / f.aloneMs) : '—',
      target: '≤ 2 items',
      met: figures.waitItems <= 2,
    });
  }
  const p = f.burstBig?.priority;
  if (p) {
    add({
      what: `priority 5 behind A's ${int(BIG_BURST)}-item backlog: items started before it (create to start)`,
      figure: `${items(p.waitItems)} (${int(p.startMs)} ms)`,
      anchor: aloneText,
      ratio: f.aloneMs ? x(p.startMs / f.aloneMs) : '—',
      target: '≤ 1 item',
      met: p.waitItems <= 1,
    });
  }
  if (f.fair) {
    const total = f.fair.counts.reduce((a, b) => a + b, 0);
    const rate = total / (f.fair.windowMs / 1000);
    const index = jain(f.fair.counts);
    add({
      what: `ten accounts, one lane: Jain's index of items completed in ${(f.fair.windowMs / 1000).toFixed(1)} s all were backlogged (${Math.min(...f.fair.counts)}–${Math.max(...f.fair.counts)} each)`,
      figure: index.toFixed(4),
      anchor: `lane ${rate.toFixed(1)} items/s of the engine's ${capacity(FAIR_ITEM_MS).toFixed(1)}`,
      ratio: x(rate / capacity(FAIR_ITEM_MS)),
      target: '≥ 0.95',
      met: index >= 0.95,
    });
  }
  if (f.weighted) {
    const [heavy, light] = f.weighted.counts;
    const share = heavy / light;
    add({
      what: `weights 3 and 1: items completed in ${(f.weighted.windowMs / 1000).toFixed(1)} s both were backlogged (${heavy} and ${light})`,
      figure: `${share.toFixed(3)} : 1`,
      anchor: 'the weights: 3 : 1',
      ratio: x(share / 3),
      target: '3 : 1 within 10 %',
      met: Math.abs(share / 3 - 1) <= 0.1,
    });
  }
  const idle = (s: SaturationFigures) =>
    `a slot idle ${s.gapMedianMs.toFixed(1)} ms median, ${s.gapMeanMs.toFixed(1)} ms mean between jobs`;
  for (const [itemMs, s, bare, goal] of [
    [ITEM_MS, f.saturation150, f.bare150, 0.98],
    [SLOW_ITEM_MS, f.saturation1s, f.bare1s, 0.995],
  ] as const) {
    if (!s || !bare || !SCENARIOS.has('saturation')) continue;
    add({
      what: `engine utilisation while work waits, ${itemMs} ms items (${s.items} items over ${(s.spanMs / 1000).toFixed(2)} s; ${s.achieved.toFixed(2)} items/s of the engine's ${capacity(itemMs).toFixed(2)})`,
      figure: `${s.value.toFixed(4)} (${idle(s)})`,
      anchor: `bare client: ${bare.value.toFixed(4)} (${idle(bare)})`,
      ratio: x(s.value / bare.value),
      target: `≥ ${goal}`,
      met: s.value >= goal,
    });
  }
  for (const order of ['alternating', 'mixed'] as const) {
    const run = f.affinity?.[order];
    if (!run) continue;
    const { with: w, without } = run;
    const speedup = without.ms / w.ms;
    // A placement blind to models switches on about half the items after each server's first: the same work, those
    // switches, two servers.
    const blindMs = (w.workMs + ((w.items - 2) / 2) * AFFINITY.switchMs) / 2;
    add({
      what: `affinity: ${w.items} items, two checkpoints ${order === 'alternating' ? 'alternating' : 'in a shuffled order'} over two one-slot servers (${AFFINITY.itemMs} ± ${AFFINITY.jitterMs} ms an item, ${AFFINITY.switchMs} ms a switch); computed for a placement blind to models: ${(blindMs / 1000).toFixed(2)} s (${x(blindMs / w.ms)})`,
      figure: `two models: ${(w.ms / 1000).toFixed(2)} s, ${w.switches} switch${w.switches === 1 ? '' : 'es'}`,
      anchor: `one model (the lane cannot tell the checkpoints apart): ${(without.ms / 1000).toFixed(2)} s, ${without.switches} switches`,
      ratio: `${speedup.toFixed(2)} × faster`,
      target: '≥ 1.6 × faster',
      met: speedup >= 1.6,
    });
  }
  if (f.cost) {
    const { empty, backlog, processes } = f.cost;
    const ratio = backlog.perSecond / empty.perSecond;
    add({
      what: `creates/s, ${processes} process${processes > 1 ? 'es' : ''} (the engine running), with ${int(BACKLOG)} items queued over ${int(BACKLOG_ACCOUNTS)} accounts (made in ${backlog.backlogSeconds.toFixed(1)} s); imgtask CPU per create ${x(backlog.cpuMs / empty.cpuMs)} of nothing queued's`,
      figure: `${int(backlog.perSecond)}/s (p99 ${int(backlog.p99)} ms, ${backlog.cpuMs.toFixed(2)} ms CPU per create)`,
      anchor: `nothing queued beforehand: ${int(empty.perSecond)}/s (p99 ${int(empty.p99)} ms, ${empty.cpuMs.toFixed(2)} ms CPU per create)`,
      ratio: x(ratio),
      target: '≥ 0.9 × (within 10 %)',
      met: ratio >= 0.9,
    });
  }
  return rows;
}

console.log(
  `scheduling benchmark — node ${process.version}, ${cpus().length} cores; stores ${STORES.join(', ')}; scenarios ${[...SCENARIOS].join(', ')}`,
);
const engine = await startFakeEngine([2, 1, 1]);
const config = imgtaskConfig(engine.urls);
const results = new Map<string, StoreFigures>();
let postgres: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
try {
  for (const driver of STORES) {
    let store: StoreChoice = { driver: 'file' };
    if (driver === 'postgres') {
      postgres = await startPostgresServer();
      store = await migratedTemplate(postgres.url, 'bench_sched_template');
    } else if (driver !== 'file') throw new Error(`BENCH_STORES: file or postgres, not ${driver}`);
    const out: StoreFigures = {};
    results.set(driver, out);
    progress(`${driver}: scenarios on one process`);
    if (['burst', 'saturation', 'fairness'].some((s) => SCENARIOS.has(s))) await mainStage(engine, store, config, out);
    if (SCENARIOS.has('affinity')) await affinityStage(engine, store, config, out);
    if (SCENARIOS.has('burst') || SCENARIOS.has('priority')) await bigBurstStage(engine, store, config, out);
    if (SCENARIOS.has('cost')) await costStage(engine, store, config, out);
    await postgres?.stop();
    postgres = undefined;
  }
} finally {
  await postgres?.stop();
  await engine.stop();
}

const all: Target[] = [];
for (const [store, figures] of results) {
  const rows = rowsOf(store, figures);
  all.push(...rows);
  console.log(`\n${store === 'file' ? 'File store' : 'PostgreSQL (embedded, fsync on)'}`);
  console.log('| what | figure | anchor (same run) | ratio | target | met |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.what} | ${row.figure} | ${row.anchor} | ${row.ratio} | ${row.target} | ${row.met ? 'yes' : 'no'} |`,
    );
}
console.log('\nTargets (this run)');
for (const row of all)
  console.log(
    `  ${row.met ? 'met    ' : 'not met'}  ${row.store.padEnd(8)} ${row.figure.padEnd(34)} ${row.target.padEnd(24)} ${row.what}`,
  );
console.log(`\n(${Math.round((performance.now() - began) / 1000)} s in all)`);
process.exit(0);
