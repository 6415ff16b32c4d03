import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { bytesText } from '../../domain/bytes.js';
import { admin } from '../context.js';
import { EXIT, print } from '../output.js';
import { command } from '../run.js';

export function registerLedgerCommands(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the ledger invariants, the free space the service writes into, each ComfyUI server and workflow file; exits 1 when an invariant is broken, free space is below store.minFreeBytes, the store refuses writes, a ComfyUI server does not answer or a workflow no longer matches its bindings',
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) => {
        const report = await admin(ctx, 'doctor', {});
        const { ledger } = report;
        print(ctx, report, () =>
          [
            ledger.ok
              ? `ledger ok: ${ledger.checked.accounts} accounts, ${ledger.checked.keys} keys, ${ledger.checked.tasks} tasks checked`
              : [`ledger BROKEN (${ledger.problems.length} problem(s)):`, ...ledger.problems.map((p) => `  - ${p}`)].join('\n'),
            ...storageLines(report.storage),
            ...engineLines(report.engines),
          ].join('\n'),
        );
        // The exit code is the report's own verdict: `ok` in --json says the same.
        return report.ok ? EXIT.ok : EXIT.failure;
      }),
    );

  program
    .command('sweep')
    .description('Fail tasks still pending 24 hours after their last update (TASK_EXPIRED)')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) => {
        const result = await admin(ctx, 'sweep', {});
        print(ctx, result, () => (result.expired ? `expired ${result.expired} task(s): ${result.taskIds.join(', ')}` : 'no task to expire'));
      }),
    );
}

type StorageReport = AdminResult<'doctor'>['storage'];

/** Free space per folder, the floor, and whether writes are taken: one line when all is well. */
function storageLines(storage: StorageReport): string[] {
  const free = storage.folders.map((folder) => `${bytesText(folder.freeBytes)} free for ${folder.name} (${folder.path})`).join(', ');
  const floor = `store.minFreeBytes ${storage.minFreeBytes === 0 ? 'off' : bytesText(storage.minFreeBytes)}`;
  if (storage.low.length === 0 && storage.writesRefused === null) return [`storage ok: ${free || 'no local folder'}; ${floor}; writes taken`];
  const lines = [`storage LOW: ${free}; ${floor}`];
  for (const phrase of storage.low) lines.push(`  - ${phrase}: new tasks and uploads are refused (507 STORAGE_FULL)`);
  if (storage.writesRefused !== null) lines.push(`  - the store refuses writes: ${storage.writesRefused}`);
  return lines;
}

/** One line per ComfyUI server and per workflow file (nothing when the config names none). */
function engineLines(engines: AdminResult<'doctor'>['engines']): string[] {
  const lines: string[] = [];
  for (const server of engines.comfyui) {
    lines.push(
      server.ok
        ? `comfyui ${server.provider} ok: ${server.baseUrl}${server.version ? `, ComfyUI ${server.version}` : ''}${server.device ? `, ${server.device}` : ''}, ${server.queue?.running ?? 0} running, ${server.queue?.pending ?? 0} waiting`
        : `comfyui ${server.provider} DOWN: ${server.baseUrl}: ${server.problem}`,
    );
  }
  for (const workflow of engines.workflows) lines.push(workflow.ok ? `workflow ${workflow.model} ok: ${workflow.file}` : `workflow ${workflow.model} BROKEN: ${workflow.problems.join('; ')}`);
  return lines;
}
