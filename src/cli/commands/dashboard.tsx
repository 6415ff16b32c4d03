import type { Command } from 'commander';
import { render } from 'ink';
import type { AdminResult } from '../../app/admin/ops.js';
import { dataDirLayout } from '../../app/data-dir.js';
import { callAdminSocket } from '../../client/admin-client.js';
import type { DashboardData } from '../../tui/screens/Dashboard.js';
import { DashboardApp } from '../../tui/screens/DashboardApp.js';
import { UsageError } from '../output.js';
import { command } from '../run.js';

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description('Live operator view of a running server on this data dir (q quits)')
    .option('--interval <ms>', 'refresh every this many milliseconds', '1000')
    .action(
      command(async (ctx, opts: { interval: string }) => {
        if (!process.stdin.isTTY) throw new UsageError('the dashboard needs a terminal');
        const socket = dataDirLayout(ctx.data).adminSocket;
        // The operator service's figures are what the screen draws.
        const load = (): Promise<DashboardData> => callAdminSocket<AdminResult<'dashboard'>>(socket, 'dashboard');
        const app = render(<DashboardApp load={load} intervalMs={Math.max(200, Number(opts.interval) || 1000)} />);
        await app.waitUntilExit();
      }),
    );
}
