import type { FleetLaneFigures, FleetLaneRepo } from '../types.js';
import type { Db } from './sql.js';

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
         INSERT INTO lane_workers (worker, lane, running, capacity, seen_at)
         SELECT $1, lane, running, capacity, now() FROM unnest($2::text[], $3::int[], $4::int[]) AS u(lane, running, capacity)
         ON CONFLICT (worker, lane) DO UPDATE SET running = excluded.running, capacity = excluded.capacity, seen_at = excluded.seen_at`,
        [worker, lanes.map((lane) => lane.lane), lanes.map((lane) => lane.running), lanes.map((lane) => lane.capacity)],
      );
    },
    async forget(worker) {
      await db.query('DELETE FROM lane_workers WHERE worker = $1', [worker]);
    },
    async figures() {
      const { rows } = await db.query<{
        kind: 'account' | 'worker';
        lane: string;
        account_id: string | null;
        items: number | null;
        waiting_since: string | null;
        running: number | null;
        capacity: number | null;
      }>(
        `WITH pending AS (
           SELECT coalesce(t.lane, '') AS lane, t.account_id, t.created_at, (t.lease_until IS NULL OR t.lease_until < now()) AS unclaimed,
                  (SELECT count(*) FROM task_items i WHERE i.task_id = t.id AND i.status = 'pending') AS items
           FROM tasks t WHERE t.status = 'pending'
         )
         SELECT 'account' AS kind, lane, account_id, sum(items)::int AS items, min(created_at) FILTER (WHERE unclaimed) AS waiting_since, NULL::int AS running, NULL::int AS capacity
         FROM pending GROUP BY lane, account_id
         UNION ALL
         SELECT 'worker', lane, NULL, NULL, NULL, sum(running)::int, sum(capacity)::int FROM lane_workers
         WHERE seen_at > now() - ${STALE_SECONDS} * interval '1 second' GROUP BY lane`,
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
      for (const row of rows) {
        const lane = laneOf(row.lane);
        if (row.kind === 'worker') {
          lane.running += row.running ?? 0;
          lane.capacity += row.capacity ?? 0;
          continue;
        }
        lane.unfinishedItems += row.items ?? 0;
        lane.accounts.push({ account: row.account_id!, items: row.items ?? 0 });
        if (row.waiting_since !== null && (lane.waitingSince === null || row.waiting_since < lane.waitingSince)) lane.waitingSince = row.waiting_since;
      }
      return [...lanes.values()];
    },
  };
}
