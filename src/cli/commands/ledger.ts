import type { Command } from 'commander';
import { admin } from '../context.js';
import { EXIT, print } from '../output.js';
import { command } from '../run.js';

export function registerLedgerCommands(program: Command): void {
  program
    .command('doctor')
    .description('Check the ledger invariants; exits 1 when one is broken')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx) => {
        const report = await admin(ctx, 'doctor', {});
        print(ctx, report, () =>
          report.ok
            ? `ledger ok: ${report.checked.accounts} accounts, ${report.checked.keys} keys, ${report.checked.tasks} tasks checked`
            : [`ledger BROKEN (${report.problems.length} problem(s)):`, ...report.problems.map((p) => `  - ${p}`)].join('\n'),
        );
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
