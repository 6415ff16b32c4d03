import type { LeaseRepo } from '../types.js';
import { type Db, hasNul } from './sql.js';
import { TASK_COLUMNS, type TaskRow, taskOf } from './tasks.js';

/**
 * Task leases in the task rows (`lease_owner`, `lease_until`): how the processes sharing the
 * database take pending tasks without two of them running the same one. Only the shared
 * intake (src/engine/intake/shared.ts) uses them.
 */
export function createPgLeaseRepo(db: Db): LeaseRepo {
  return {
    async claim(workerId, limit, leaseMs) {
      if (limit <= 0) return [];
      // SKIP LOCKED: a row another claim (or a write) holds is passed over, not waited for, so two
      // claims at once take different tasks. The ids are locked first; the tasks are read after.
      return db.tx(async (client) => {
        const { rows } = await client.query<{ id: string }>(
          `UPDATE tasks SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
           WHERE id IN (SELECT id FROM tasks WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < now()) ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING id, seq`,
          [workerId, limit, leaseMs],
        );
        if (rows.length === 0) return [];
        const claimed = await client.query<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks t WHERE t.id = ANY($1::text[]) ORDER BY t.seq`, [rows.map((row) => row.id)]);
        return claimed.rows.map(taskOf);
      });
    },
    async renew(workerId, ids, leaseMs) {
      const wanted = ids.filter((id) => !hasNul(id));
      if (wanted.length === 0) return [];
      const { rows } = await db.query<{ id: string }>(
        `UPDATE tasks SET lease_until = now() + $3 * interval '1 millisecond'
         WHERE id = ANY($2::text[]) AND lease_owner = $1 AND status = 'pending' RETURNING id`,
        [workerId, wanted, leaseMs],
      );
      const held = new Set(rows.map((row) => row.id));
      return wanted.filter((id) => held.has(id));
    },
    async release(workerId, id) {
      if (hasNul(id)) return;
      await db.query('UPDATE tasks SET lease_owner = NULL, lease_until = NULL WHERE id = $2 AND lease_owner = $1', [workerId, id]);
    },
  };
}
