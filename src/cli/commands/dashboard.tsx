import type { Command } from 'commander';
import { render } from 'ink';
import { dataDirLayout } from '../../app/data-dir.js';
import { createAdminClient } from '../../client/admin-client.js';
import type { DashboardData } from '../../tui/screens/Dashboard.js';
import { DashboardApp } from '../../tui/screens/DashboardApp.js';
import { action } from '../context.js';
import { UsageError } from '../output.js';

export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description('Live operator view of a running server on this data dir (q quits)')
    .option('--interval <ms>', 'refresh every this many milliseconds', '1000')
    .action(
      action(async (g, opts: { interval: string }) => {
        if (!process.stdin.isTTY) throw new UsageError('the dashboard needs a terminal');
        const admin = createAdminClient(dataDirLayout(g.data).adminSocket);
        const app = render(<DashboardApp load={() => admin.call<DashboardData>('dashboard')} intervalMs={Math.max(200, Number(opts.interval) || 1000)} />);
        await app.waitUntilExit();
      }),
    );
}
