import type { LeaseRepo } from '../../repos/shared-queue.js';
import type { Db } from '../db.js';
import { groupCommit } from '../group-commit.js';
import { hasNul } from '../sql.js';
import { PENDING, TASK_COLUMNS, type TaskRow, taskOf } from './task-rows.js';

/**
 * Takes pending tasks for worker $1, per lane $2 at most $3 of them, in the lane's fair order
 * (docs/scheduling.md): priority, then the start tag given at create, then age, from the
 * `tasks_queue` index (SKIP LOCKED: two claims at once take different ones). Tasks of a key whose
 * maxConcurrent is already taken by leased tasks are passed over (the keys with a bound are few;
 * the items themselves are held to it by key slots, key-slots.ts). Each lane's virtual time
 * moves up to the tags it starts. $4 tasks created before lanes were kept are taken oldest
 * first. The ids claimed are kept in a transaction-local setting.
 */
const CLAIM = `WITH want AS (
  SELECT * FROM unnest($2::text[], $3::int[], $6::int[]) AS w(lane, n, min_priority)
), full_keys AS (
  SELECT k.id FROM api_keys k
  WHERE k.revoked_at IS NULL AND k.doc LIKE '%"maxConcurrent":%'
    AND (SELECT count(*) FROM tasks l WHERE l.api_key_id = k.id AND l.status = 'pending' AND l.lease_owner IS NOT NULL AND l.lease_until > now())
        >= substring(k.doc from '"maxConcurrent":([0-9]+)')::int
), picked AS (
  SELECT c.* FROM want, LATERAL (
    SELECT t.id, t.lane, t.vstart FROM tasks t
    WHERE t.lane = want.lane AND t.priority >= want.min_priority AND t.status = 'pending' AND (t.lease_until IS NULL OR t.lease_until < now())
      AND (t.api_key_id IS NULL OR t.api_key_id NOT IN (SELECT id FROM full_keys))
    ORDER BY t.priority DESC, t.vstart, t.seq LIMIT want.n FOR UPDATE SKIP LOCKED
  ) c
), legacy AS (
  SELECT t.id FROM tasks t WHERE $4 > 0 AND t.lane IS NULL AND t.status = 'pending' AND (t.lease_until IS NULL OR t.lease_until < now())
  ORDER BY t.seq LIMIT $4 FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE tasks SET lease_owner = $1, lease_until = now() + $5 * interval '1 millisecond'
  WHERE id IN (SELECT id FROM picked UNION ALL SELECT id FROM legacy)
  RETURNING id
), clock AS (
  INSERT INTO lane_clocks (lane, vtime) SELECT lane, max(vstart) FROM picked GROUP BY lane ORDER BY lane
  ON CONFLICT (lane) DO UPDATE SET vtime = greatest(lane_clocks.vtime, excluded.vtime)
)
SELECT set_config('imgtask.claimed', coalesce(json_agg(id)::text, '[]'), true) FROM claimed`;

/**
 * The lanes with pending tasks (a loose index scan: one probe per lane, whatever the backlog), and whether tasks
 * created before lanes were kept wait.
 */
const PENDING_LANES = `WITH RECURSIVE l AS (
  (SELECT lane FROM tasks WHERE status = 'pending' AND lane IS NOT NULL ORDER BY lane LIMIT 1)
  UNION ALL
  SELECT (SELECT t.lane FROM tasks t WHERE t.status = 'pending' AND t.lane > l.lane ORDER BY t.lane LIMIT 1) FROM l WHERE l.lane IS NOT NULL
)
SELECT lane, false AS legacy FROM l WHERE lane IS NOT NULL
UNION ALL
SELECT NULL, true WHERE EXISTS (SELECT 1 FROM tasks WHERE status = 'pending' AND lane IS NULL)`;

/** The most leases given back in one statement. */
const MAX_RELEASES = 256;

/**
 * Task leases in the task rows (`lease_owner`, `lease_until`): how the processes sharing the
 * database take pending tasks without two of them running the same one. Only the shared
 * intake (src/engine/intake/shared.ts) uses them.
 *
 * Every statement here that locks several task rows takes them in id order, as the batched
 * writers of tasks do (task-finish.ts), or skips those locked: none waits for another in a circle.
 */
export function createPgLeaseRepo(db: Db): LeaseRepo {
  // Leases given back while a statement giving back others is in flight go together in the next.
  const releases = groupCommit<{ workerId: string; id: string }, void>({
    maxBatch: MAX_RELEASES,
    async run(members) {
      const byWorker = new Map<string, string[]>();
      for (const { workerId, id } of members) byWorker.set(workerId, [...(byWorker.get(workerId) ?? []), id]);
      for (const [workerId, ids] of byWorker) {
        // A settled task is never claimed again: its lease needs no write.
        await db.named({
          name: 'imgtask_release_leases',
          text: `UPDATE tasks SET lease_owner = NULL, lease_until = NULL
                 WHERE id IN (SELECT id FROM tasks t WHERE t.id = ANY($2::text[]) AND t.lease_owner = $1 AND ${PENDING} ORDER BY t.id FOR UPDATE)`,
          values: [workerId, ids],
        });
      }
      return members.map(() => ({ ok: true as const, value: undefined }));
    },
  });
  return {
    async claim(workerId, wants, leaseMs) {
      const lanes = wants.filter((want) => want.lane !== null && want.limit > 0 && !hasNul(want.lane));
      const legacy = wants.find((want) => want.lane === null)?.limit ?? 0;
      if (lanes.length === 0 && legacy <= 0) return [];
      // One round trip: CLAIM leases the tasks and keeps their ids for the rest of the transaction
      // (a transaction-local setting); the second statement reads them as they are once leased.
      const [, claimed] = await db.batch([
        {
          name: 'imgtask_claim',
          text: CLAIM,
          values: [
            workerId,
            lanes.map((want) => want.lane),
            lanes.map((want) => want.limit),
            legacy,
            leaseMs,
            lanes.map((want) => want.minPriority ?? -32768),
          ],
        },
        {
          text: `SELECT ${TASK_COLUMNS}, t.seq, t.priority, t.vstart FROM tasks t WHERE t.id IN (SELECT json_array_elements_text(current_setting('imgtask.claimed')::json))`,
        },
      ]);
      // In claim order: priority, then start tag, then age (sorted here: an ORDER BY could make the planner walk an
      // index).
      return (claimed.rows as (TaskRow & { seq: number; priority: number; vstart: number })[])
        .sort((a, b) => b.priority - a.priority || a.vstart - b.vstart || a.seq - b.seq)
        .map(taskOf);
    },
    async pendingLanes() {
      const { rows } = await db.named<{ lane: string | null; legacy: boolean }>({
        name: 'imgtask_pending_lanes',
        text: PENDING_LANES,
      });
      return {
        lanes: rows.flatMap((row) => (row.lane === null ? [] : [row.lane])),
        legacy: rows.some((row) => row.legacy),
      };
    },
    async renew(workerId, ids, leaseMs) {
      const wanted = ids.filter((id) => !hasNul(id));
      if (wanted.length === 0) return [];
      const { rows } = await db.query<{ id: string }>(
        `UPDATE tasks SET lease_until = now() + $3 * interval '1 millisecond'
         WHERE id IN (SELECT id FROM tasks WHERE id = ANY($2::text[]) AND lease_owner = $1 AND status = 'pending' ORDER BY id FOR UPDATE) RETURNING id`,
        [workerId, wanted, leaseMs],
      );
      const held = new Set(rows.map((row) => row.id));
      return wanted.filter((id) => held.has(id));
    },
    async release(workerId, id) {
      if (hasNul(id)) return;
      await releases.submit({ workerId, id });
    },
  };
}
