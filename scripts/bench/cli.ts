/**
 * CLI cold start (not a test): the median wall time of N fresh `imgtask --help` and
 * `imgtask --version` processes beside the anchor `node -e 0`, measured in the same run and
 * interleaved with them so that the ratio survives a busy machine.
 *
 * `imgtask` here is the package as installed: the current sources compiled (tsconfig.build.json)
 * into a temporary copy of the package's files, run as `node bin/imgtask.js` with no src/ beside
 * it, over this clone's node_modules. It never reads the shared dist/, which may be older than
 * the sources. In a clone, bin/imgtask.js also checks that dist/ is newer than src/ (a few ms).
 *
 *   npm run bench:cli            (BENCH_RUNS=21)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const root = join(import.meta.dirname, '../..');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const dir = mkdtempSync(join(tmpdir(), 'imgtask-bench-cli-'));
try {
  const pkg = join(dir, 'package');
  mkdirSync(pkg);
  for (const entry of ['package.json', 'bin', 'config'])
    cpSync(join(root, entry), join(pkg, entry), { recursive: true });
  process.stderr.write('building into a temporary copy of the package…\n');
  const build = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(root, 'tsconfig.build.json'),
      '--outDir',
      join(pkg, 'dist'),
      '--noCheck',
    ],
    {
      encoding: 'utf8',
    },
  );
  if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  const bin = join(pkg, 'bin/imgtask.js');

  const cases: { label: string; args: string[] }[] = [
    { label: 'node -e 0 (anchor)', args: ['-e', '0'] },
    { label: 'imgtask --help', args: [bin, '--help'] },
    { label: 'imgtask --version', args: [bin, '--version'] },
  ];
  const times = new Map(cases.map((c) => [c.label, [] as number[]]));
  for (let run = 0; run <= RUNS; run++) {
    for (const c of cases) {
      const start = performance.now();
      const result = spawnSync(process.execPath, c.args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const ms = performance.now() - start;
      if (result.status !== 0) throw new Error(`${c.label} exited ${result.status}: ${result.stderr}`);
      if (run > 0) times.get(c.label)!.push(ms); // round 0 warms the file cache
    }
  }

  const anchor = median(times.get(cases[0].label)!);
  process.stdout.write(`CLI cold start, median of ${RUNS} fresh processes each (Node ${process.version})\n\n`);
  process.stdout.write('| Command | Median | × anchor |\n|---|---|---|\n');
  for (const c of cases) {
    const ms = median(times.get(c.label)!);
    process.stdout.write(`| \`${c.label}\` | ${ms.toFixed(0)} ms | ${(ms / anchor).toFixed(2)} × |\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
