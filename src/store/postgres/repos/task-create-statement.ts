import { periodKey } from '../../../domain/periods.js';
import type { TaskRecord } from '../../records/tasks.js';
import type { CreateOptions } from '../../repos/tasks.js';
import type { Statement } from '../db.js';
import { docOf, encode } from '../sql.js';
import { foldCtes } from '../unapplied.js';
import { fileBytes, MUTABLE, metadataPairs, spendPeriods } from './task-rows.js';

/**
 * One create as handed to the store: the task, the key's spending limit if it has one, the lease it is written with if
 * any.
 */
export interface CreateRequest extends CreateOptions {
  task: TaskRecord;
}

/**
 * Locks the batch's accounts, in id order (every writer that locks several accounts takes them
 * in that order, so two batches never wait for each other in a circle).
 */
const LOCK_ACCOUNTS = 'SELECT 1 FROM accounts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE';

/**
 * The creates of a batch, in one statement, run after LOCK_ACCOUNTS in the same transaction: it
 * began once the accounts were locked, so it reads them, the keys' spend and the settlements
 * waiting for them (unapplied.ts) as they are now. It applies those settlements first, then
 * checks per account the batch's sum: the account exists, its available balance covers the sum
 * of the estimates, and each of its keys with a spending limit stays within it with the sum of
 * that key's estimates. Only the accounts that pass get the creates written: their tasks and
 * items (multi-row inserts) and, with what was applied, one update per account and one per key
 * and period. Answers each account's verdict and available balance, and each limited key's spend
 * in its limit's period, as they were read.
 */
const CREATE = `WITH m AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::text[],
                       $11::text[], $12::text[], $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::text[], $18::int[], $19::int[],
                       $32::text[], $33::int[], $34::timestamptz[], $35::int[])
    WITH ORDINALITY AS m(id, account_id, api_key_id, type, status, estimate, cost, created_at, updated_at, event_id,
                         result, errors, prepared, doc, reserve, limit_amount, limit_period, pairs_from, pairs_to,
                         lane, priority, deadline_at, item_count, ord)
), need AS (
  SELECT account_id AS id, sum(estimate) AS total FROM m GROUP BY account_id
), ${foldCtes('$29::text[]')}, limited AS (
  SELECT m.api_key_id, m.limit_period, min(m.limit_amount) AS lim, sum(m.estimate) AS total,
         coalesce((SELECT s.amount FROM key_spend s WHERE s.api_key_id = m.api_key_id AND s.period = m.limit_period), 0)
         + coalesce((SELECT f.amount FROM folded_spend f WHERE f.api_key_id = m.api_key_id AND f.period = m.limit_period), 0) AS spent
  FROM m WHERE m.limit_amount IS NOT NULL GROUP BY m.api_key_id, m.limit_period
), verdict AS (
  SELECT need.id AS account_id, a.balance - a.reserved + coalesce(f.released, 0) - coalesce(f.charged, 0) AS available,
    CASE WHEN a.id IS NULL OR a.erasing_since IS NOT NULL OR a.erased_at IS NOT NULL THEN 'gone'
         WHEN a.balance - a.reserved + coalesce(f.released, 0) - coalesce(f.charged, 0) < need.total THEN 'balance'
         WHEN EXISTS (SELECT 1 FROM limited l JOIN m ON m.api_key_id = l.api_key_id AND m.limit_period = l.limit_period
                      WHERE m.account_id = need.id AND l.spent + l.total > l.lim) THEN 'limit'
         ELSE 'ok' END AS verdict
  FROM need LEFT JOIN LATERAL (SELECT * FROM accounts a WHERE a.id = need.id) a ON true LEFT JOIN folded f ON f.account_id = need.id
), ok AS (
  SELECT m.* FROM m JOIN verdict v ON v.account_id = m.account_id WHERE v.verdict = 'ok'
), tagged AS (
  SELECT ok.ord, ok.account_id, ok.lane,
         greatest(coalesce(c.vtime, 0), coalesce(f.finish, 0))
           + coalesce(sum(ok.item_count::float8 / a.weight) OVER (PARTITION BY ok.account_id, ok.lane ORDER BY ok.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS vstart,
         ok.item_count::float8 / a.weight AS span
  FROM ok JOIN accounts a ON a.id = ok.account_id
    LEFT JOIN lane_clocks c ON c.lane = ok.lane LEFT JOIN fair_tags f ON f.account_id = ok.account_id AND f.lane = ok.lane
  WHERE ok.lane IS NOT NULL AND ok.status = 'pending'
), tags AS (
  INSERT INTO fair_tags (account_id, lane, finish)
  SELECT account_id, lane, max(vstart + span) FROM tagged GROUP BY account_id, lane ORDER BY account_id, lane
  ON CONFLICT (account_id, lane) DO UPDATE SET finish = greatest(fair_tags.finish, excluded.finish)
), task AS (
  INSERT INTO tasks (id, account_id, api_key_id, type, status, estimate, cost, created_at, updated_at, event_id, settled_seq, metadata_pairs, result, errors, prepared, doc,
                     lease_owner, lease_until, lane, priority, vstart, deadline_at)
  SELECT ok.id, ok.account_id, api_key_id, type, status, estimate, cost, created_at, updated_at, event_id,
         CASE WHEN status <> 'pending' THEN nextval('imgtask_order') END, coalesce(($20::text[])[pairs_from:pairs_to], '{}'), result, errors, prepared, doc,
         l.owner, CASE WHEN l.owner IS NOT NULL THEN now() + l.ms * interval '1 millisecond' END,
         ok.lane, ok.priority, coalesce(g.vstart, 0), ok.deadline_at
  FROM ok LEFT JOIN unnest($30::text[], $31::bigint[]) WITH ORDINALITY AS l(owner, ms, ord) ON l.ord = ok.ord
    LEFT JOIN tagged g ON g.ord = ok.ord ORDER BY ok.ord
), items AS (
  INSERT INTO task_items (task_id, idx, status, doc, bytes)
  SELECT i.task_id, i.idx, i.status, i.doc, i.bytes FROM unnest($21::text[], $22::int[], $23::text[], $24::text[], $36::bigint[]) AS i(task_id, idx, status, doc, bytes)
  WHERE i.task_id IN (SELECT id FROM ok)
), account AS (
  UPDATE accounts a SET reserved = a.reserved - coalesce(f.released, 0) + coalesce(r.total, 0), balance = a.balance - coalesce(f.charged, 0),
    updated_at = greatest(a.updated_at, f.charged_at)
  FROM need n LEFT JOIN folded f ON f.account_id = n.id LEFT JOIN (SELECT account_id, sum(reserve) AS total FROM ok GROUP BY account_id) r ON r.account_id = n.id
  WHERE a.id = n.id AND a.id = ANY($29::text[]) AND (f.account_id IS NOT NULL OR r.account_id IS NOT NULL)
), spend AS (
  INSERT INTO key_spend (api_key_id, period, amount)
  SELECT api_key_id, period, sum(amount) FROM (
    SELECT s.api_key_id, s.period, s.amount FROM unnest($25::bigint[], $26::text[], $27::text[], $28::bigint[]) AS s(ord, api_key_id, period, amount)
    WHERE s.ord IN (SELECT ord FROM ok)
    UNION ALL
    SELECT api_key_id, period, amount FROM folded_spend
  ) x GROUP BY api_key_id, period ORDER BY api_key_id, period
  ON CONFLICT (api_key_id, period) DO UPDATE SET amount = key_spend.amount + excluded.amount
)
SELECT 'account' AS kind, account_id AS id, NULL AS period, verdict, available AS amount FROM verdict
UNION ALL
SELECT 'key', api_key_id, limit_period, NULL, spent FROM limited`;

export type Verdict = 'ok' | 'gone' | 'balance' | 'limit';

export interface VerdictRow {
  kind: 'account' | 'key';
  id: string;
  period: string | null;
  verdict: Verdict | null;
  amount: number | null;
}

export const limitPeriodOf = (request: CreateRequest): string | null =>
  request.spendingLimit === undefined || request.task.apiKeyId === null
    ? null
    : periodKey(request.spendingLimit.period, Date.parse(request.task.createdAt));

/** The batch's statements: the accounts locked, then CREATE over the members' columns. */
export function createStatements(members: readonly CreateRequest[]): Statement[] {
  const pairs: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const items: { task: string[]; idx: number[]; status: string[]; doc: string[]; bytes: number[] } = {
    task: [],
    idx: [],
    status: [],
    doc: [],
    bytes: [],
  };
  const spend: { ord: number[]; key: string[]; period: string[]; amount: number[] } = {
    ord: [],
    key: [],
    period: [],
    amount: [],
  };
  members.forEach(({ task }, i) => {
    const own = metadataPairs(task.request);
    from.push(pairs.length + 1);
    pairs.push(...own);
    to.push(pairs.length);
    task.items.forEach((item, idx) => {
      items.task.push(task.id);
      items.idx.push(idx);
      items.status.push(item.status);
      items.doc.push(JSON.stringify(item));
      items.bytes.push(fileBytes(item));
    });
    for (const period of spendPeriods(task.apiKeyId, task.createdAt)) {
      spend.ord.push(i + 1);
      spend.key.push(task.apiKeyId!);
      spend.period.push(period);
      spend.amount.push(task.status === 'pending' ? task.estimate : task.cost);
    }
  });
  const tasks = members.map((member) => member.task);
  const accounts = [...new Set(tasks.map((task) => task.accountId))];
  return [
    { name: 'imgtask_lock_accounts', text: LOCK_ACCOUNTS, values: [accounts] },
    {
      name: 'imgtask_create_tasks',
      text: CREATE,
      values: [
        tasks.map((t) => t.id),
        tasks.map((t) => t.accountId),
        tasks.map((t) => t.apiKeyId),
        tasks.map((t) => t.type),
        tasks.map((t) => t.status),
        tasks.map((t) => t.estimate),
        tasks.map((t) => t.cost),
        tasks.map((t) => t.createdAt),
        tasks.map((t) => t.updatedAt),
        tasks.map((t) => t.eventId ?? null),
        tasks.map((t) => encode(t.result)),
        tasks.map((t) => encode(t.errors)),
        tasks.map((t) => encode(t.prepared)),
        tasks.map((t) => docOf(t, MUTABLE)),
        tasks.map((t) => (t.status === 'pending' ? t.estimate : 0)),
        members.map((member) => (limitPeriodOf(member) === null ? null : member.spendingLimit!.limit)),
        members.map(limitPeriodOf),
        from,
        to,
        pairs,
        items.task,
        items.idx,
        items.status,
        items.doc,
        spend.ord,
        spend.key,
        spend.period,
        spend.amount,
        accounts,
        members.map((member) => member.lease?.owner ?? null),
        members.map((member) => member.lease?.ms ?? null),
        members.map((member) => member.lane ?? null),
        tasks.map((t) => t.priority ?? 0),
        tasks.map((t) => t.deadlineAt ?? null),
        tasks.map((t) => t.items.length),
        items.bytes,
      ],
    },
  ];
}
