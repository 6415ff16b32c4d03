import type { Command } from 'commander';
import { action, admin } from '../context.js';
import { EXIT, print } from '../output.js';

interface DoctorReport {
  ok: boolean;
  problems: string[];
  checked: { accounts: number; tasks: number; keys: number };
}

export function registerLedgerCommands(program: Command): void {
  program
    .command('doctor')
    .description('Check the ledger invariants; exits 1 when one is broken')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, _opts: unknown, cmd: Command) => {
        const report = (await admin(cmd, 'doctor', {})) as DoctorReport;
        print(g, report, () =>
          report.ok
            ? `ledger ok: ${report.checked.accounts} accounts, ${report.checked.keys} keys, ${report.checked.tasks} tasks checked`
            : [`ledger BROKEN (${report.problems.length} problem(s)):`, ...report.problems.map((p) => `  - ${p}`)].join('\n'),
        );
        if (!report.ok) process.exit(EXIT.failure);
      }),
    );

  program
    .command('sweep')
    .description('Fail tasks still pending 24 hours after their last update (TASK_EXPIRED)')
    .option('--json', 'print one JSON document')
    .action(
      action(async (g, _opts: unknown, cmd: Command) => {
        const result = (await admin(cmd, 'sweep', {})) as { expired: number; taskIds: string[] };
        print(g, result, () => (result.expired ? `expired ${result.expired} task(s): ${result.taskIds.join(', ')}` : 'no task to expire'));
      }),
    );
}
