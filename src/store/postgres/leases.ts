import type { LeaseRepo } from '../types.js';
import { groupCommit } from './group-commit.js';
import { type Db, hasNul } from './sql.js';
import { PENDING, TASK_COLUMNS, type TaskRow, taskOf } from './task-rows.js';

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
    async claim(workerId, limit, leaseMs) {
      if (limit <= 0) return [];
      // SKIP LOCKED: a row another claim (or a write) holds is passed over, not waited for, so two
      // claims at once take different tasks. The first statement leases them and keeps their ids
      // for the rest of the transaction (a transaction-local setting); the second reads the tasks,
      // as they are once leased (the first one's reads are as of when it began). One round trip.
      const [, claimed] = await db.batch([
        {
          text: `WITH claimed AS (
                   UPDATE tasks SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
                   WHERE id IN (SELECT id FROM tasks WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < now()) ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
                   RETURNING id
                 )
                 SELECT set_config('imgtask.claimed', coalesce(json_agg(id)::text, '[]'), true) FROM claimed`,
          values: [workerId, limit, leaseMs],
        },
        { text: `SELECT ${TASK_COLUMNS}, t.seq FROM tasks t WHERE t.id IN (SELECT json_array_elements_text(current_setting('imgtask.claimed')::json))` },
      ]);
      // Oldest first (sorted here: an ORDER BY could make the planner walk the whole seq index).
      return (claimed.rows as (TaskRow & { seq: number })[]).sort((a, b) => a.seq - b.seq).map(taskOf);
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
