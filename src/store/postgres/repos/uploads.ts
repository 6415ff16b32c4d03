import type { UploadRecord } from '../../records/uploads.js';
import type { UploadRepo } from '../../repos/uploads.js';
import type { Db } from '../db.js';
import { hasNul } from '../sql.js';

/** Uploaded images in `uploads`, one row each, every field a column. */
export const UPLOAD_COLUMNS = 'id, account_id, api_key_id, file_name, bytes, created_at, deleted_at';

export interface UploadRow {
  id: string;
  account_id: string;
  api_key_id: string | null;
  file_name: string;
  bytes: number;
  created_at: string;
  deleted_at: string | null;
}

export const uploadOf = (row: UploadRow): UploadRecord => ({
  id: row.id,
  accountId: row.account_id,
  apiKeyId: row.api_key_id,
  fileName: row.file_name,
  bytes: row.bytes,
  createdAt: row.created_at,
  ...(row.deleted_at === null ? {} : { deletedAt: row.deleted_at }),
});

export function createPgUploadRepo(db: Db): UploadRepo {
  const select = async (where: string, values: unknown[]): Promise<UploadRecord[]> =>
    (await db.query<UploadRow>(`SELECT ${UPLOAD_COLUMNS} FROM uploads ${where}`, values)).rows.map(uploadOf);
  return {
    async put(upload) {
      await db.query(
        `INSERT INTO uploads (id, account_id, api_key_id, file_name, bytes, created_at, deleted_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, api_key_id = excluded.api_key_id, file_name = excluded.file_name,
           bytes = excluded.bytes, created_at = excluded.created_at, deleted_at = excluded.deleted_at`,
        [
          upload.id,
          upload.accountId,
          upload.apiKeyId,
          upload.fileName,
          upload.bytes,
          upload.createdAt,
          upload.deletedAt ?? null,
        ],
      );
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return (await select('WHERE id = $1', [id]))[0];
    },
    async delete(id) {
      if (hasNul(id)) return false;
      return ((await db.query('DELETE FROM uploads WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
    async createdBefore(accountId, before, limit) {
      if (limit <= 0 || hasNul(accountId) || hasNul(before)) return [];
      return select('WHERE account_id = $1 AND created_at < $2 ORDER BY created_at, id LIMIT $3', [
        accountId,
        before,
        limit,
      ]);
    },
    async usage(accountId) {
      if (hasNul(accountId)) return { count: 0, bytes: 0 };
      const { rows } = await db.query<{ count: number; bytes: number }>(
        'SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM uploads WHERE account_id = $1 AND deleted_at IS NULL',
        [accountId],
      );
      return rows[0];
    },
    async all() {
      return select('ORDER BY seq', []);
    },
  };
}
