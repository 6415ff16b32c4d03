import type { SecretRecord } from '../../records/secrets.js';
import type { SecretRepo } from '../../repos/secrets.js';
import type { Db } from '../db.js';
import { docOf, hasNul } from '../sql.js';

export function createPgSecretRepo(db: Db): SecretRepo {
  return {
    async put(secret) {
      await db.query(
        'INSERT INTO secrets (id, doc) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc',
        [secret.id, docOf(secret, [])],
      );
    },
    async delete(id) {
      if (hasNul(id)) return false;
      const { rowCount } = await db.query('DELETE FROM secrets WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM secrets WHERE id = $1', [id]);
      return rows.length === 0 ? undefined : (JSON.parse(rows[0].doc) as SecretRecord);
    },
    async list() {
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM secrets ORDER BY seq');
      return rows.map((row) => JSON.parse(row.doc) as SecretRecord);
    },
  };
}
