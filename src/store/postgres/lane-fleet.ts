import type { FleetLaneFigures, FleetLaneRepo } from '../repos/shared-queue.js';
import type { Db } from './db.js';

/** A process that has not reported its lanes for this long is taken to be gone. */
const STALE_SECONDS = 10;

/**
 * The lanes as the whole fleet sees them: what waits in the database (pending items of pending
 * tasks, per lane and account), and what every working process reports of its own lanes every
 * few seconds (`lane_workers`: items running, slots). One aggregate over the pending tasks: for
 * operators and metrics, read at most every few seconds, never per create or start.
 */
export function createPgFleetLanes(db: Db): FleetLaneRepo {
  return {
    async report(worker, lanes) {
      await db.query(
        `WITH gone AS (DELETE FROM lane_workers WHERE worker = $1 AND lane <> ALL($2::text[]))
         INSERT INTO lane_workers (worker, lane, running, capacity, queued_accounts, seen_at)
         SELECT $1, lane, running, capacity, accounts, now() FROM unnest($2::text[], $3::int[], $4::int[], $5::text[]) AS u(lane, running, capacity, accounts)
         ON CONFLICT (worker, lane) DO UPDATE SET running = excluded.running, capacity = excluded.capacity, queued_accounts = excluded.queued_accounts, seen_at = excluded.seen_at`,
        [
          worker,
          lanes.map((lane) => lane.lane),
          lanes.map((lane) => lane.running),
          lanes.map((lane) => lane.capacity),
          lanes.map((lane) => lane.accounts.map(({ account, queued }) => `${account} ${queued}`).join(',')),
        ],
      );
    },
    async forget(worker) {
      await db.query('DELETE FROM lane_workers WHERE worker = $1', [worker]);
    },
    async figures(exceptWorker) {
      const { rows } = await db.query<{
        kind: 'account' | 'worker';
        lane: string;
        account_id: string | null;
        items: number | null;
        waiting: number | null;
        waiting_since: string | null;
        running: number | null;
        capacity: number | null;
      }>(
        `WITH pending AS (
           SELECT coalesce(t.lane, '') AS lane, t.account_id, t.created_at, (t.lease_until IS NULL OR t.lease_until < now()) AS unclaimed,
                  (SELECT count(*) FROM task_items i WHERE i.task_id = t.id AND i.status = 'pending') AS items
           FROM tasks t WHERE t.status = 'pending'
         )
         SELECT 'account' AS kind, lane, account_id, sum(items)::int AS items, (sum(items) FILTER (WHERE unclaimed))::int AS waiting,
                min(created_at) FILTER (WHERE unclaimed) AS waiting_since, NULL::int AS running, NULL::int AS capacity
         FROM pending GROUP BY lane, account_id
         UNION ALL
         SELECT 'worker', lane, string_agg(queued_accounts, ','), NULL, NULL, NULL, sum(running)::int, sum(capacity)::int FROM lane_workers
         WHERE seen_at > now() - ${STALE_SECONDS} * interval '1 second' AND worker <> $1 GROUP BY lane`,
        [exceptWorker ?? ''],
      );
      const lanes = new Map<string, FleetLaneFigures>();
      const laneOf = (name: string) => {
        let lane = lanes.get(name);
        if (!lane) {
          lane = { lane: name, unfinishedItems: 0, running: 0, capacity: 0, waitingSince: null, accounts: [] };
          lanes.set(name, lane);
        }
        return lane;
      };
      const add = (lane: FleetLaneFigures, account: string, items: number) => {
        const found = lane.accounts.find((entry) => entry.account === account);
        if (found) found.items += items;
        else lane.accounts.push({ account, items });
      };
      for (const row of rows) {
        const lane = laneOf(row.lane);
        if (row.kind === 'worker') {
          lane.running += row.running ?? 0;
          lane.capacity += row.capacity ?? 0;
          // Items the processes hold queued, per account: `<account> <n>` parts (account ids hold no space or comma).
          for (const part of (row.account_id ?? '').split(',')) {
            const [account, queued] = part.split(' ');
            if (account && Number(queued) > 0) add(lane, account, Number(queued));
          }
          continue;
        }
        lane.unfinishedItems += row.items ?? 0;
        if ((row.waiting ?? 0) > 0) add(lane, row.account_id!, row.waiting ?? 0);
        if (row.waiting_since !== null && (lane.waitingSince === null || row.waiting_since < lane.waitingSince))
          lane.waitingSince = row.waiting_since;
      }
      return [...lanes.values()];
    },
  };
}
