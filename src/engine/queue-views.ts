import type { QueueView } from '../domain/dashboard.js';
import type { LanePauseRecord } from '../store/records.js';
import type { FleetLaneFigures } from '../store/store-contract.js';
import type { LaneStats } from './runner/lanes.js';

/** How many accounts a lane's view names. */
const TOP_ACCOUNTS = 5;

const byName = (a: QueueView, b: QueueView) => (a.lane < b.lane ? -1 : a.lane > b.lane ? 1 : 0);

function paused(view: QueueView, pause: LanePauseRecord | undefined): QueueView {
  if (pause) {
    view.paused = true;
    view.pausedAt = pause.pausedAt;
  }
  return view;
}

/** A paused lane with nothing in it here (none ran since the start, or the fleet reports none). */
const idleLane = (pause: LanePauseRecord): QueueView =>
  paused(
    { lane: pause.id, queued: 0, running: 0, capacity: 0, oldestQueuedSeconds: 0, paused: false, topAccounts: [] },
    pause,
  );

/** The lanes of a process that owns its store (the file store): its lanes are the fleet's. */
export function localQueues(stats: Record<string, LaneStats>, pauses: readonly LanePauseRecord[]): QueueView[] {
  const pauseOf = new Map(pauses.map((pause) => [pause.id, pause]));
  const views = Object.entries(stats).map(([lane, s]) =>
    paused(
      {
        lane,
        queued: s.queued,
        running: s.running,
        capacity: s.concurrency,
        oldestQueuedSeconds: s.oldestQueuedMs / 1000,
        paused: s.paused,
        topAccounts: s.topAccounts,
      },
      pauseOf.get(lane),
    ),
  );
  // A lane paused before anything ran in it since the start is shown too.
  for (const pause of pauses) if (!(pause.id in stats)) views.push(idleLane(pause));
  return views.sort(byName);
}

/**
 * The lanes of a fleet sharing a database: what waits there and what the other working
 * processes reported (store figures), with this process's own lanes as they are now (`local`:
 * its running and queued items, its slots, its oldest wait).
 */
export function fleetQueues(
  reported: readonly FleetLaneFigures[],
  pauses: readonly LanePauseRecord[],
  local: Record<string, LaneStats>,
  now: number,
): QueueView[] {
  const pauseOf = new Map(pauses.map((pause) => [pause.id, pause]));
  const figures = withOwnLanes(reported, local);
  const views = figures
    .filter((figure) => figure.lane !== '' || figure.unfinishedItems > 0)
    .map((figure) => {
      const waited = figure.waitingSince === null ? 0 : Math.max(0, (now - Date.parse(figure.waitingSince)) / 1000);
      const own = (local[figure.lane]?.oldestQueuedMs ?? 0) / 1000;
      const topAccounts = [...figure.accounts]
        .sort((a, b) => b.items - a.items || (a.account < b.account ? -1 : 1))
        .slice(0, TOP_ACCOUNTS)
        .map(({ account, items }) => ({ account, queued: items }));
      return paused(
        {
          lane: figure.lane === '' ? '(created before lanes were kept)' : figure.lane,
          queued: Math.max(0, figure.unfinishedItems - figure.running),
          running: figure.running,
          capacity: figure.capacity,
          oldestQueuedSeconds: Math.max(waited, own),
          paused: false,
          topAccounts,
        },
        pauseOf.get(figure.lane),
      );
    });
  const shown = new Set(views.map((view) => view.lane));
  for (const pause of pauses) if (!shown.has(pause.id)) views.push(idleLane(pause));
  return views.sort(byName);
}

/** The store's figures with this process's own lanes added: its running items, slots and queued items per account. */
function withOwnLanes(reported: readonly FleetLaneFigures[], local: Record<string, LaneStats>): FleetLaneFigures[] {
  const figures = new Map(
    reported.map((figure) => [figure.lane, { ...figure, accounts: figure.accounts.map((entry) => ({ ...entry })) }]),
  );
  for (const [lane, stats] of Object.entries(local)) {
    let figure = figures.get(lane);
    if (!figure) {
      figure = { lane, unfinishedItems: 0, running: 0, capacity: 0, waitingSince: null, accounts: [] };
      figures.set(lane, figure);
    }
    figure.running += stats.running;
    figure.capacity += stats.concurrency;
    for (const { account, queued } of stats.topAccounts) {
      const found = figure.accounts.find((entry) => entry.account === account);
      if (found) found.items += queued;
      else figure.accounts.push({ account, items: queued });
    }
  }
  return [...figures.values()];
}
