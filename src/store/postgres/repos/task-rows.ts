import { PERIODS, periodKey } from '../../../domain/periods.js';
import { metadataOf } from '../../../domain/task-status.js';
import type { ItemRecord, TaskRecord } from '../../records/tasks.js';
import { decode } from '../sql.js';

/**
 * Tasks: one row each, its items one row each in `task_items` (recording an item writes that
 * row and the task's `updatedAt`, not the whole task). What changes after creation is kept in
 * columns; the rest of the record is the `doc`.
 *
 * Money is kept in step as the file store's indexes keep it: `accounts.reserved` is the sum of
 * the account's pending estimates; `key_spend` holds a key's spend per day, week and month
 * (the estimate while pending, then the charge). Every change to them happens in the
 * transaction that changes the task, with the account row locked.
 */
export const MUTABLE = ['items', 'status', 'cost', 'result', 'errors', 'eventId', 'prepared', 'updatedAt'] as const;

export const TASK_COLUMNS = `t.doc, t.status, t.cost, t.result, t.errors, t.event_id, t.prepared, t.updated_at,
  (SELECT array_agg(i.doc ORDER BY i.idx) FROM task_items i WHERE i.task_id = t.id) AS items`;

export interface TaskRow {
  doc: string;
  status: TaskRecord['status'];
  cost: number;
  result: string | null;
  errors: string | null;
  event_id: string | null;
  prepared: string | null;
  updated_at: string;
  items: string[] | null;
}

export function taskOf(row: TaskRow): TaskRecord {
  const task = JSON.parse(row.doc) as TaskRecord;
  task.status = row.status;
  task.items = (row.items ?? []).map((item) => JSON.parse(item) as ItemRecord);
  task.cost = row.cost;
  if (row.result !== null) task.result = decode(row.result);
  if (row.errors !== null) task.errors = decode(row.errors);
  if (row.event_id !== null) task.eventId = row.event_id;
  if (row.prepared !== null) task.prepared = decode(row.prepared);
  task.updatedAt = row.updated_at;
  return task;
}

/** The bytes of the files an item stored (its row's `bytes`: what an account's stored bytes add up). */
export const fileBytes = (item: ItemRecord): number => (item.files ?? []).reduce((sum, file) => sum + file.bytes, 0);

/**
 * A metadata filter as containment: each top-level key with a text-comparable value, as the text `[key,
 * String(value)]`.
 */
export function metadataPairs(request: unknown): string[] {
  const metadata = metadataOf(request);
  if (metadata === null || typeof metadata !== 'object') return [];
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (value !== undefined && value !== null && typeof value !== 'object')
      pairs.push(JSON.stringify([key, String(value)]));
  }
  return pairs;
}

/** The spend keys (`key_spend.period`) a task created at `createdAt` counts in. */
export const spendPeriods = (apiKeyId: string | null, createdAt: string): string[] => {
  if (apiKeyId === null) return [];
  const millis = Date.parse(createdAt);
  return PERIODS.map((period) => periodKey(period, millis));
};

/**
 * `t.status = 'pending'` as the batches' statements test it on the tasks they look up by id
 * (planned once, generically: see PgStore): written so that it cannot use the partial index over
 * pending tasks, which a plan made while few tasks were pending would walk instead.
 */
export const PENDING = "(CASE WHEN t.status = 'pending' THEN true END)";
