import type pg from 'pg';
import { type DumpCounts, type DumpRecord, StoreNotEmptyError, zeroCounts } from '../dump.js';
import type { DumpKind } from '../dump-kinds.js';
import type { AccountRecord, CreditRecord } from '../records/accounts.js';
import type { ApiKeyRecord } from '../records/api-keys.js';
import type { DestinationRecord } from '../records/destinations.js';
import type { SecretRecord } from '../records/secrets.js';
import type { TaskRecord } from '../records/tasks.js';
import type { UploadRecord } from '../records/uploads.js';
import type { DeliveryRecord, EventRecord, WebhookRecord } from '../records/webhooks.js';
import { retentionText } from './repos/accounts.js';
import { insertDeliveries } from './repos/delivery-rows.js';
import { fileBytes, MUTABLE, metadataPairs, spendPeriods } from './repos/task-rows.js';
import { docOf, encode, nameKey, transaction } from './sql.js';

/**
 * The PostgreSQL side of `imgtask store import` (see ../dump.ts): a load into an empty database in one
 * transaction, in batches of many rows per statement.
 */

/** Rows per insert statement; fewer when their text passes BATCH_BYTES. */
const BATCH_ROWS = 1000;
const BATCH_BYTES = 8 << 20;

const TABLES: Record<DumpKind, string> = {
  account: 'accounts',
  credit: 'credits',
  apiKey: 'api_keys',
  task: 'tasks',
  secret: 'secrets',
  webhook: 'webhooks',
  event: 'events',
  delivery: 'deliveries',
  destination: 'destinations',
  upload: 'uploads',
};

/** An insert of many rows: `unnest` over one array per column (`u.c0`, `u.c1`, …), in the order given. */
function insertMany(table: string, types: string[], select: [expression: string, column: string][]): string {
  const params = types.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
  const names = [...types.map((_, i) => `c${i}`), 'ord'].join(', ');
  return `INSERT INTO ${table} (${select.map(([, column]) => column).join(', ')})
    SELECT ${select.map(([expression]) => expression).join(', ')} FROM unnest(${params}) WITH ORDINALITY AS u(${names}) ORDER BY u.ord`;
}

/** Per kind: the statement and the column arrays of a batch of its records. */
type Flush = (client: pg.PoolClient, records: unknown[]) => Promise<void>;

function simple<T>(table: string, columns: { name: string; type: string; value: (record: T) => unknown }[]): Flush {
  const sql = insertMany(
    table,
    columns.map((c) => c.type),
    columns.map((c, i) => [`u.c${i}`, c.name]),
  );
  return async (client, records) => {
    await client.query(
      sql,
      columns.map((c) => (records as T[]).map(c.value)),
    );
  };
}

/** Loads dump records into an empty database in one transaction; answers the counts. */
export function pgLoad(pool: pg.Pool, records: AsyncIterable<DumpRecord>): Promise<DumpCounts> {
  return transaction(pool, 'BEGIN', async (client) => {
    // Nothing else writes while the import runs (readers still read); the emptiness check holds to the commit.
    await client.query(
      `LOCK TABLE ${Object.values(TABLES).join(', ')}, task_items, key_spend, unapplied_settlements IN EXCLUSIVE MODE`,
    );
    const holds = zeroCounts();
    const { rows } = await client.query<Record<DumpKind, number>>(
      `SELECT ${Object.entries(TABLES)
        .map(([kind, table]) => `(SELECT count(*) FROM ${table}) AS "${kind}"`)
        .join(', ')}`,
    );
    for (const kind of Object.keys(TABLES) as DumpKind[]) holds[kind] = rows[0][kind];
    if (Object.values(holds).some((count) => count > 0)) throw new StoreNotEmptyError(holds);

    const counts = zeroCounts();
    /** Reserves (pending estimates) per account, and spend per key and period: what creates and settles keep. */
    const reserved = new Map<string, number>();
    const spend = new Map<string, number>();
    const flushers = loaders(reserved, spend);
    let batch: unknown[] = [];
    let batchKind: DumpKind | undefined;
    let batchBytes = 0;
    const flush = async () => {
      if (batchKind && batch.length > 0) await flushers[batchKind](client, batch);
      batch = [];
      batchBytes = 0;
    };
    for await (const { kind, record } of records) {
      if (kind !== batchKind) {
        await flush();
        batchKind = kind;
      }
      batch.push(record);
      counts[kind] += 1;
      batchBytes += kind === 'task' || kind === 'event' ? JSON.stringify(record).length : 256;
      if (batch.length >= BATCH_ROWS || batchBytes >= BATCH_BYTES) await flush();
    }
    await flush();
    if (reserved.size > 0) {
      await client.query(
        'UPDATE accounts a SET reserved = u.amount FROM unnest($1::text[], $2::bigint[]) AS u(id, amount) WHERE a.id = u.id',
        [[...reserved.keys()], [...reserved.values()]],
      );
    }
    if (spend.size > 0) {
      const keys = [...spend.keys()].map((key) => key.split('\n'));
      await client.query(
        'INSERT INTO key_spend (api_key_id, period, amount) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])',
        [keys.map(([keyId]) => keyId), keys.map(([, period]) => period), [...spend.values()]],
      );
    }
    return counts;
  });
}

function loaders(reserved: Map<string, number>, spend: Map<string, number>): Record<DumpKind, Flush> {
  const add = (map: Map<string, number>, key: string, amount: number) => map.set(key, (map.get(key) ?? 0) + amount);
  const insertTasks = insertMany(
    'tasks',
    [
      'text',
      'text',
      'text',
      'text',
      'text',
      'bigint',
      'bigint',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
    ],
    [
      ['u.c0', 'id'],
      ['u.c1', 'account_id'],
      ['u.c2', 'api_key_id'],
      ['u.c3', 'type'],
      ['u.c4', 'status'],
      ['u.c5', 'estimate'],
      ['u.c6', 'cost'],
      ['u.c7', 'created_at'],
      ['u.c8', 'updated_at'],
      ['u.c9', 'event_id'],
      ["CASE WHEN u.c4 <> 'pending' THEN nextval('imgtask_order') END", 'settled_seq'],
      // Metadata pairs are JSON texts, which never hold a raw newline: joined by one, split here.
      ["CASE WHEN u.c10 = '' THEN '{}'::text[] ELSE string_to_array(u.c10, E'\\n') END", 'metadata_pairs'],
      ['u.c11', 'result'],
      ['u.c12', 'errors'],
      ['u.c13', 'prepared'],
      ['u.c14', 'doc'],
      ['u.c15', 'data_removed_at'],
    ],
  );
  const insertItems =
    'INSERT INTO task_items (task_id, idx, status, doc, bytes) SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::bigint[])';
  return {
    account: simple<AccountRecord>('accounts', [
      { name: 'id', type: 'text', value: (a) => a.id },
      { name: 'name_key', type: 'text', value: (a) => nameKey(a.name) },
      { name: 'balance', type: 'bigint', value: (a) => a.balance },
      { name: 'weight', type: 'int', value: (a) => a.weight ?? 1 },
      { name: 'removed_charges', type: 'bigint', value: (a) => a.removedCharges ?? 0 },
      { name: 'retention', type: 'text', value: (a) => retentionText(a.retention) },
      { name: 'erasing_since', type: 'text', value: (a) => a.erasingSince ?? null },
      { name: 'erased_at', type: 'text', value: (a) => a.erasedAt ?? null },
      { name: 'created_at', type: 'text', value: (a) => a.createdAt },
      { name: 'updated_at', type: 'text', value: (a) => a.updatedAt },
    ]),
    credit: simple<CreditRecord>('credits', [
      { name: 'id', type: 'text', value: (c) => c.id },
      { name: 'account_id', type: 'text', value: (c) => c.accountId },
      { name: 'doc', type: 'text', value: (c) => docOf(c, []) },
    ]),
    apiKey: simple<ApiKeyRecord>('api_keys', [
      { name: 'id', type: 'text', value: (k) => k.id },
      { name: 'account_id', type: 'text', value: (k) => k.accountId },
      { name: 'hash', type: 'text', value: (k) => k.hash },
      { name: 'revoked_at', type: 'text', value: (k) => k.revokedAt ?? null },
      { name: 'doc', type: 'text', value: (k) => docOf(k, ['revokedAt']) },
    ]),
    task: async (client, records) => {
      const tasks = records as TaskRecord[];
      const column = (value: (task: TaskRecord) => unknown) => tasks.map(value);
      await client.query(insertTasks, [
        column((t) => t.id),
        column((t) => t.accountId),
        column((t) => t.apiKeyId),
        column((t) => t.type),
        column((t) => t.status),
        column((t) => t.estimate),
        column((t) => t.cost),
        column((t) => t.createdAt),
        column((t) => t.updatedAt),
        column((t) => t.eventId ?? null),
        column((t) => metadataPairs(t.request).join('\n')),
        column((t) => encode(t.result)),
        column((t) => encode(t.errors)),
        column((t) => encode(t.prepared)),
        column((t) => docOf(t, MUTABLE)),
        column((t) => t.dataRemovedAt ?? null),
      ]);
      const items = tasks.flatMap((task) => task.items.map((item, idx) => ({ taskId: task.id, idx, item })));
      if (items.length > 0) {
        await client.query(insertItems, [
          items.map((i) => i.taskId),
          items.map((i) => i.idx),
          items.map((i) => i.item.status),
          items.map((i) => JSON.stringify(i.item)),
          items.map((i) => fileBytes(i.item)),
        ]);
      }
      for (const task of tasks) {
        const pending = task.status === 'pending';
        if (pending) add(reserved, task.accountId, task.estimate);
        for (const period of spendPeriods(task.apiKeyId, task.createdAt))
          add(spend, `${task.apiKeyId}\n${period}`, pending ? task.estimate : task.cost);
      }
    },
    secret: simple<SecretRecord>('secrets', [
      { name: 'id', type: 'text', value: (s) => s.id },
      { name: 'doc', type: 'text', value: (s) => docOf(s, []) },
    ]),
    webhook: simple<WebhookRecord>('webhooks', [
      { name: 'id', type: 'text', value: (w) => w.id },
      { name: 'account_id', type: 'text', value: (w) => w.accountId },
      { name: 'doc', type: 'text', value: (w) => docOf(w, []) },
    ]),
    event: simple<EventRecord>('events', [
      { name: 'id', type: 'text', value: (e) => e.id },
      { name: 'task_id', type: 'text', value: (e) => e.taskId },
      { name: 'doc', type: 'text', value: (e) => docOf(e, []) },
      { name: 'account_id', type: 'text', value: (e) => e.accountId },
    ]),
    delivery: (client, records) => insertDeliveries(client, records as DeliveryRecord[]),
    destination: simple<DestinationRecord>('destinations', [
      { name: 'id', type: 'text', value: (d) => d.id },
      { name: 'account_id', type: 'text', value: (d) => d.accountId },
      { name: 'name_key', type: 'text', value: (d) => nameKey(d.name) },
      { name: 'doc', type: 'text', value: (d) => docOf(d, []) },
    ]),
    upload: simple<UploadRecord>('uploads', [
      { name: 'id', type: 'text', value: (u) => u.id },
      { name: 'account_id', type: 'text', value: (u) => u.accountId },
      { name: 'api_key_id', type: 'text', value: (u) => u.apiKeyId },
      { name: 'file_name', type: 'text', value: (u) => u.fileName },
      { name: 'bytes', type: 'bigint', value: (u) => u.bytes },
      { name: 'created_at', type: 'text', value: (u) => u.createdAt },
      { name: 'deleted_at', type: 'text', value: (u) => u.deletedAt ?? null },
    ]),
  };
}
