import type { LanePauseRecord } from '../../records/lane-pauses.js';
import type { LanePauseRepo } from '../../repos/lane-pauses.js';
import type { Db } from '../db.js';
import { hasNul } from '../sql.js';

/**
 * Every process of the fleet reads the pauses again on this channel (engine/intake/fleet-signals.ts).
 * Sent by the store itself, so a pause made where no intake runs (`imgtask queues pause` opening
 * the database from the CLI) applies at once, not at the next poll.
 */
const LANES_CHANGED = 'imgtask_lanes_changed';

export function createPgLanePauseRepo(db: Db): LanePauseRepo {
  const notify = () => db.query('SELECT pg_notify($1, $2)', [LANES_CHANGED, '']);
  const recordOf = (row: { lane: string; paused_at: string }): LanePauseRecord => ({
    id: row.lane,
    pausedAt: row.paused_at,
  });
  return {
    async list() {
      const { rows } = await db.query<{ lane: string; paused_at: string }>(
        'SELECT lane, paused_at FROM lane_pauses ORDER BY lane',
      );
      return rows.map(recordOf);
    },
    async pause(record) {
      const { rows } = await db.query<{ lane: string; paused_at: string }>(
        `WITH added AS (INSERT INTO lane_pauses (lane, paused_at) VALUES ($1, $2) ON CONFLICT (lane) DO NOTHING RETURNING lane, paused_at)
         SELECT lane, paused_at FROM added UNION ALL SELECT lane, paused_at FROM lane_pauses WHERE lane = $1 LIMIT 1`,
        [record.id, record.pausedAt],
      );
      await notify();
      return recordOf(rows[0]);
    },
    async resume(lane) {
      if (hasNul(lane)) return false;
      const { rowCount } = await db.query('DELETE FROM lane_pauses WHERE lane = $1', [lane]);
      if ((rowCount ?? 0) > 0) await notify();
      return (rowCount ?? 0) > 0;
    },
  };
}
