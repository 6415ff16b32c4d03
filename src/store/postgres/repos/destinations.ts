import { AppError } from '../../../domain/errors.js';
import type { DestinationRecord } from '../../records/destinations.js';
import type { DestinationRepo } from '../../repos/destinations.js';
import type { Db } from '../db.js';
import { docOf, hasNul, isUniqueViolation, nameKey, stored } from '../sql.js';

const parse = (rows: { doc: string }[]): DestinationRecord[] =>
  rows.map((row) => JSON.parse(row.doc) as DestinationRecord);

/** Runs a write; the unique (account, name) index makes the name check and the write one step. */
async function nameChecked<T>(destination: DestinationRecord, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, 'destinations_name'))
      throw new AppError('DESTINATION_NAME_TAKEN', `the account already has a destination named "${destination.name}"`);
    throw err;
  }
}

export function createPgDestinationRepo(db: Db): DestinationRepo {
  return {
    async put(destination) {
      await nameChecked(destination, () =>
        db.query(
          `INSERT INTO destinations (id, account_id, name_key, doc) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, name_key = excluded.name_key, doc = excluded.doc`,
          [destination.id, destination.accountId, nameKey(destination.name), docOf(destination, [])],
        ),
      );
      return stored(destination);
    },
    async replace(destination) {
      if (hasNul(destination.id)) return undefined;
      const { rowCount } = await nameChecked(destination, () =>
        db.query('UPDATE destinations SET account_id = $2, name_key = $3, doc = $4 WHERE id = $1', [
          destination.id,
          destination.accountId,
          nameKey(destination.name),
          docOf(destination, []),
        ]),
      );
      return rowCount ? stored(destination) : undefined;
    },
    async delete(id) {
      if (!hasNul(id)) await db.query('DELETE FROM destinations WHERE id = $1', [id]);
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return parse((await db.query<{ doc: string }>('SELECT doc FROM destinations WHERE id = $1', [id])).rows)[0];
    },
    async getByName(accountId, name) {
      if (hasNul(accountId)) return undefined;
      return parse(
        (
          await db.query<{ doc: string }>('SELECT doc FROM destinations WHERE account_id = $1 AND name_key = $2', [
            accountId,
            nameKey(name),
          ])
        ).rows,
      )[0];
    },
    async listByAccount(accountId) {
      if (hasNul(accountId)) return [];
      return parse(
        (
          await db.query<{ doc: string }>('SELECT doc FROM destinations WHERE account_id = $1 ORDER BY seq', [
            accountId,
          ])
        ).rows,
      );
    },
  };
}
