import type { Command } from 'commander';
import type { AdminResult } from '../../app/admin/ops.js';
import { waitText } from '../../domain/waits.js';
import { adminPrint } from '../context.js';
import { tableOr } from '../output.js';
import { command } from '../run.js';

type Lane = AdminResult<'queues.list'>[number];

const LANE_ARGUMENT = 'the lane, as imgtask queues lists it (image.rate, gpu-1+gpu-2, video:gpu-1)';

/** The accounts with the most items queued, most first: `acme 12, globex 3`. */
const topText = (lane: Lane): string => lane.topAccounts.map((top) => `${top.name} ${top.queued}`).join(', ') || '-';

const listing = (lanes: Lane[]): string =>
  tableOr(
    'no lane has work queued or running, and none is paused',
    ['LANE', 'QUEUED', 'RUNNING', 'CAPACITY', 'OLDEST WAIT', 'STATE', 'TOP ACCOUNTS (QUEUED)'],
    lanes.map((lane) => [
      lane.lane,
      String(lane.queued),
      String(lane.running),
      String(lane.capacity),
      lane.queued > 0 ? waitText(lane.oldestQueuedSeconds) : '-',
      lane.paused ? 'paused' : 'active',
      topText(lane),
    ]),
  );

export function registerQueueCommands(program: Command): void {
  const queues = program
    .command('queues')
    .description(
      'List the work lanes: items queued and running, capacity, the oldest wait, pauses and the accounts with the most queued (the fleet on PostgreSQL)',
    )
    .option('--json', 'print one JSON document')
    .action(command(async (ctx) => adminPrint(ctx, 'queues.list', {}, (lanes) => listing(lanes))));

  queues
    .command('pause')
    .argument('<lane>', LANE_ARGUMENT)
    .description(
      'Pause a lane, on every process: its queued items wait, running items finish, creates are still accepted (a lane with no work yet may be paused too)',
    )
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, lane: string) =>
        adminPrint(
          ctx,
          'queues.pause',
          { lane },
          (paused) =>
            `paused ${paused.lane} (since ${paused.pausedAt}): queued items wait until imgtask queues resume ${paused.lane}`,
        ),
      ),
    );

  queues
    .command('resume')
    .argument('<lane>', LANE_ARGUMENT)
    .description('Resume a paused lane: its queued items start again')
    .option('--json', 'print one JSON document')
    .action(
      command(async (ctx, lane: string) =>
        adminPrint(ctx, 'queues.resume', { lane }, (resumed) => `resumed ${resumed.lane}`),
      ),
    );
}
