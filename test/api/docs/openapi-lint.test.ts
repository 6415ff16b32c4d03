import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startService } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
const REDOCLY = fileURLToPath(import.meta.resolve('@redocly/cli/bin/cli.js'));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: 'error' | 'warn'; message: string; location: { pointer?: string }[] }[];
}

/** `redocly lint` (the recommended rules, redocly.yaml) of a document; exit code 1 only says there were errors. */
async function lint(file: string): Promise<LintReport> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const args = ['lint', '--format=json', `--config=${join(ROOT, 'redocly.yaml')}`, file];
  const { stdout } = await run(process.execPath, [REDOCLY, ...args], { cwd: ROOT, env, maxBuffer: 64 << 20 }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout) throw new Error(`redocly lint did not run: ${error.stderr}`);
      return { stdout: error.stdout };
    },
  );
  return JSON.parse(stdout) as LintReport;
}

const summary = (report: LintReport, severity: 'error' | 'warn') =>
  report.problems
    .filter((p) => p.severity === severity)
    .map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`)
    .join('\n');

test('redocly lint with the recommended rules finds no error in the document a real server serves', async (t) => {
  const h = await startService(t);
  const res = await h.request('GET', '/openapi.json', { auth: null });
  assert.equal(res.status, 200);
  const file = join(await tempDir(t), 'openapi.json');
  await writeFile(file, res.text);

  const report = await lint(file);
  assert.equal(report.totals.errors, 0, summary(report, 'error'));
  // The only warnings left: public routes that have no 4xx answer at all (health, the description itself).
  const warned = report.problems.filter((p) => p.severity === 'warn').map((p) => p.ruleId);
  assert.deepEqual([...new Set(warned)], warned.length ? ['operation-4xx-response'] : [], summary(report, 'warn'));

  // The linter does fail a broken document: an undeclared path parameter and a dangling $ref.
  const broken = structuredClone(res.json);
  delete broken.paths['/tasks/{id}/status'].get.parameters;
  broken.paths['/tasks/{id}'].get.responses['200'].content['application/json'].schema = {
    $ref: '#/components/schemas/Nowhere',
  };
  const brokenFile = join(await tempDir(t), 'broken.json');
  await writeFile(brokenFile, JSON.stringify(broken));
  const rejected = await lint(brokenFile);
  assert.ok(rejected.totals.errors >= 2, summary(rejected, 'error'));
  assert.deepEqual([...new Set(rejected.problems.filter((p) => p.severity === 'error').map((p) => p.ruleId))].sort(), [
    'no-unresolved-refs',
    'path-parameters-defined',
  ]);
});
