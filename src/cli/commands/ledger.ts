import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { bytesText } from '../../domain/bytes.js';
import { admin } from '../context.js';
import { EXIT, print } from '../output.js';
import { command } from '../run.js';

export function registerLedgerCommands(program: Command): void {
  program
    .command('doctor')
    .description('Check the ledger invariants and the free space the service writes into; exits 1 when an invariant is broken, free space is below store.minFreeBytes or the store refuses writes')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) => {
        const report = await admin(ctx, 'doctor', {});
        const storageOk = report.storage.low.length === 0 && report.storage.writesRefused === null;
        print(ctx, report, () =>
          [
            report.ok
              ? `ledger ok: ${report.checked.accounts} accounts, ${report.checked.keys} keys, ${report.checked.tasks} tasks checked`
              : [`ledger BROKEN (${report.problems.length} problem(s)):`, ...report.problems.map((p) => `  - ${p}`)].join('\n'),
            ...storageLines(report.storage),
          ].join('\n'),
        );
        return report.ok && storageOk ? EXIT.ok : EXIT.failure;
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
