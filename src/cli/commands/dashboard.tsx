import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { dataDirLayout } from '../../app/data-dir.js';
import { callAdminSocket } from '../../client/admin-socket-client.js';
import type { DashboardData } from '../../tui/screens/Dashboard.js';
import { intOption, UsageError } from '../output.js';
import { command } from '../run.js';

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description('Live operator view of a running server on this data dir (q quits)')
    .option('--interval <ms>', 'refresh every this many milliseconds, 200 to 60000', '1000')
    .action(
      command(async (ctx, opts: { interval: string }) => {
        const intervalMs = intOption(opts.interval, '--interval', 200, 60_000) as number;
        const socket = dataDirLayout(ctx.data).adminSocket;
        // The operator service's figures are what the screen draws.
        const load = (): Promise<DashboardData> => callAdminSocket<AdminResult<'dashboard'>>(socket, 'dashboard');
        // No server on this data dir: say how to start one, rather than a screen that waits forever.
        await load().catch(async (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT' && err.code !== 'ECONNREFUSED') throw err;
          const { serversElsewhere } = await import('../data-dir-guard.js');
          throw new Error(
            `no server is running on the data dir ${resolve(ctx.data)}: start one with \`imgtask --data ${ctx.data} serve\`, then run the dashboard again${await serversElsewhere(resolve(ctx.data))}`,
          );
        });
        if (!process.stdin.isTTY) throw new UsageError('the dashboard needs a terminal');
        // Ink and React load only now, not when the CLI starts (no JSX in this file: it would import react/jsx-runtime
        // at start).
        const [{ render }, { createElement }, { DashboardApp }, { drawableStdout }] = await Promise.all([
          import('ink'),
          import('react'),
          import('../../tui/screens/DashboardApp.js'),
          import('../../tui/terminal-width.js'),
        ]);
        // A terminal reporting 0 columns gets 80 × 24, as the task watch view does.
        const app = render(createElement(DashboardApp, { load, intervalMs }), {
          stdout: drawableStdout(process.stdout),
        });
        await app.waitUntilExit();
      }),
    );
}
