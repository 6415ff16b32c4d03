import type pg from 'pg';
import type { DumpRecord } from '../dump.js';
import type { CreditRecord } from '../records/accounts.js';
import type { DestinationRecord } from '../records/destinations.js';
import type { SecretRecord } from '../records/secrets.js';
import type { EventRecord, WebhookRecord } from '../records/webhooks.js';
import { ACCOUNT_COLUMNS, type AccountRow, accountOf } from './repos/accounts.js';
import { keyOf } from './repos/api-keys.js';
import { DELIVERY_COLUMNS, deliveryOf } from './repos/delivery-rows.js';
import { TASK_COLUMNS, taskOf } from './repos/task-rows.js';
import { UPLOAD_COLUMNS, type UploadRow, uploadOf } from './repos/uploads.js';
import { checkout } from './sql.js';
import { EFFECTIVE_ACCOUNTS } from './unapplied.js';

/**
 * The PostgreSQL side of `imgtask store export` (see ../dump.ts): every record read in one REPEATABLE READ
 * transaction (one consistent moment, even while servers run), page by page.
 */

const PAGE = 1000;

/** Rows of `sql` (which takes the last key as $1 and the page size as $2, and answers the key as `k`), page by page. */
async function* pages<R extends { k: number | string }>(
  client: pg.PoolClient,
  sql: string,
  first: number | string,
): AsyncGenerator<R> {
  let after = first;
  for (;;) {
    const { rows } = await client.query<R>(sql, [after, PAGE]);
    yield* rows;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].k;
  }
}

type DocRow = { k: number | string; doc: string };

const docs = <T>(rows: AsyncIterable<{ doc: string }>) =>
  (async function* () {
    for await (const row of rows) yield JSON.parse(row.doc) as T;
  })();

/** Every record, in dump order, as of one moment. */
export async function* pgRecords(pool: pg.Pool): AsyncGenerator<DumpRecord> {
  const held = await checkout(pool);
  const { client } = held;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const bySeq = (table: string, columns: string) =>
      `SELECT seq AS k, ${columns} FROM ${table} WHERE seq > $1 ORDER BY seq LIMIT $2`;
    for await (const row of pages<{ k: number } & AccountRow>(
      client,
      bySeq(`${EFFECTIVE_ACCOUNTS} a`, ACCOUNT_COLUMNS),
      0,
    )) {
      yield { kind: 'account', record: accountOf(row) };
    }
    for await (const record of docs<CreditRecord>(pages<DocRow>(client, bySeq('credits', 'doc'), 0)))
      yield { kind: 'credit', record };
    for await (const row of pages<{ k: number } & Parameters<typeof keyOf>[0]>(
      client,
      bySeq('api_keys', 'doc, revoked_at'),
      0,
    ))
      yield { kind: 'apiKey', record: keyOf(row) };
    for await (const row of pages<{ k: number } & Parameters<typeof taskOf>[0]>(
      client,
      `SELECT t.seq AS k, ${TASK_COLUMNS} FROM tasks t WHERE t.seq > $1 ORDER BY t.seq LIMIT $2`,
      0,
    )) {
      yield { kind: 'task', record: taskOf(row) };
    }
    for await (const record of docs<SecretRecord>(pages<DocRow>(client, bySeq('secrets', 'doc'), 0)))
      yield { kind: 'secret', record };
    for await (const record of docs<WebhookRecord>(pages<DocRow>(client, bySeq('webhooks', 'doc'), 0)))
      yield { kind: 'webhook', record };
    for await (const record of docs<EventRecord>(
      pages<DocRow>(client, 'SELECT id AS k, doc FROM events WHERE id > $1 ORDER BY id LIMIT $2', ''),
    ))
      yield { kind: 'event', record };
    // Settled deliveries in insertion order, then the pending ones in the order they became pending.
    type DeliveryRow = { k: number } & Parameters<typeof deliveryOf>[0];
    for await (const row of pages<DeliveryRow>(
      client,
      `SELECT seq AS k, ${DELIVERY_COLUMNS} FROM deliveries WHERE status <> 'pending' AND seq > $1 ORDER BY seq LIMIT $2`,
      0,
    )) {
      yield { kind: 'delivery', record: deliveryOf(row) };
    }
    for await (const row of pages<DeliveryRow>(
      client,
      `SELECT pending_seq AS k, ${DELIVERY_COLUMNS} FROM deliveries WHERE status = 'pending' AND pending_seq > $1 ORDER BY pending_seq LIMIT $2`,
      0,
    )) {
      yield { kind: 'delivery', record: deliveryOf(row) };
    }
    for await (const record of docs<DestinationRecord>(pages<DocRow>(client, bySeq('destinations', 'doc'), 0)))
      yield { kind: 'destination', record };
    for await (const row of pages<{ k: number } & UploadRow>(client, bySeq('uploads', UPLOAD_COLUMNS), 0))
      yield { kind: 'upload', record: uploadOf(row) };
    await client.query('COMMIT');
  } finally {
    // Also when the reader stops early: the read-only transaction ends with the connection's release.
    if (!held.broken) await client.query('ROLLBACK').catch((err: Error) => (held.broken = err));
    held.release();
  }
}
