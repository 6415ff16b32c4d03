import type { LanePauseRecord } from '../records.js';
import type { LanePauseRepo } from '../types.js';
import { type Db, hasNul } from './sql.js';

export function createPgLanePauseRepo(db: Db): LanePauseRepo {
  const recordOf = (row: { lane: string; paused_at: string }): LanePauseRecord => ({ id: row.lane, pausedAt: row.paused_at });
  return {
    async list() {
      const { rows } = await db.query<{ lane: string; paused_at: string }>('SELECT lane, paused_at FROM lane_pauses ORDER BY lane');
      return rows.map(recordOf);
    },
    async pause(record) {
      const { rows } = await db.query<{ lane: string; paused_at: string }>(
        `WITH added AS (INSERT INTO lane_pauses (lane, paused_at) VALUES ($1, $2) ON CONFLICT (lane) DO NOTHING RETURNING lane, paused_at)
         SELECT lane, paused_at FROM added UNION ALL SELECT lane, paused_at FROM lane_pauses WHERE lane = $1 LIMIT 1`,
        [record.id, record.pausedAt],
      );
      return recordOf(rows[0]);
    },
    async resume(lane) {
      if (hasNul(lane)) return false;
      const { rowCount } = await db.query('DELETE FROM lane_pauses WHERE lane = $1', [lane]);
      return (rowCount ?? 0) > 0;
    },
  };
}
