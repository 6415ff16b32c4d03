import type { Micros } from '../../domain/money.js';

/** A file an item stored (an image, a video, a video's poster): its blob name and size. Never shown in the API. */
export interface StoredFile {
  name: string;
  bytes: number;
}

type ItemStatus = 'pending' | 'success' | 'failed';

/** One unit of a task's work (an image, a URL). Items finish independently. */
export interface ItemRecord {
  status: ItemStatus;
  /** Charged for this item at settlement, when it succeeded. */
  cost?: Micros;
  /** Type-specific output of a successful item. */
  result?: unknown;
  /** Why a failed item failed. `details` holds type-specific extras. */
  error?: { code: string; message?: string };
  attempts?: number;
  /**
   * The files it stored (outputs, thumbnails, posters): what deleting the task removes, and the account's stored bytes.
   */
  files?: StoredFile[];
}

export interface TaskRecord {
  id: string;
  type: string;
  status: 'pending' | 'completed' | 'failed';
  accountId: string;
  /** The key that created the task; null when it was an OAuth access token. */
  apiKeyId: string | null;
  /** The validated request, unknown fields dropped. */
  request: unknown;
  items: ItemRecord[];
  /** Reserved at creation; held while pending. */
  estimate: Micros;
  /** Charged at settlement (0 before). */
  cost: Micros;
  result: unknown;
  errors?: { code: string; message?: string }[];
  /** The event recorded for this task's settlement (webhooks). */
  eventId?: string;
  /** What the type's `prepare` worked out and must survive a restart (resolved model, size, magic prompt). */
  prepared?: unknown;
  /** Its place against other work in its lane (-10..10, the request's `priority`); absent: 0. */
  priority?: number;
  /** When its unfinished items are cancelled with TASK_EXPIRED (the create's Cancel-After), ISO with milliseconds. */
  deadlineAt?: string;
  /** When its data was removed (DELETE /tasks/{id}, retention, an erase): see scrubbedTask. */
  dataRemovedAt?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * A settled task with its data removed: what accounting needs and nothing a client wrote or an
 * engine made. Kept: ids, type, status, owner, amounts, timestamps (updatedAt stays the
 * settlement time usage counts by), the model it ran on, priority and deadline, items' statuses,
 * costs, attempts and error codes. Gone: the request (prompts, metadata, URLs), the result (alt
 * text, findings, magic prompts, image URLs), error messages and the items' files (their blobs
 * are deleted first). Idempotent: a scrubbed task scrubs to itself.
 */
export function scrubbedTask(task: TaskRecord, at: string): TaskRecord {
  const model = modelOf(task);
  const scrubbed: TaskRecord = {
    id: task.id,
    type: task.type,
    status: task.status,
    accountId: task.accountId,
    apiKeyId: task.apiKeyId,
    request: {},
    items: task.items.map((item) => scrubbedItem(item)),
    estimate: task.estimate,
    cost: task.cost,
    result: null,
    dataRemovedAt: task.dataRemovedAt ?? at,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
  };
  if (task.errors) scrubbed.errors = task.errors.map(({ code }) => ({ code }));
  if (task.eventId !== undefined) scrubbed.eventId = task.eventId;
  if (model !== null) scrubbed.prepared = { model };
  if (task.priority !== undefined) scrubbed.priority = task.priority;
  if (task.deadlineAt !== undefined) scrubbed.deadlineAt = task.deadlineAt;
  return scrubbed;
}

function scrubbedItem(item: ItemRecord): ItemRecord {
  const out: ItemRecord = { status: item.status };
  if (item.cost !== undefined) out.cost = item.cost;
  if (item.attempts !== undefined) out.attempts = item.attempts;
  if (item.error) out.error = { code: item.error.code };
  return out;
}

/** How many of a task's items have finished (succeeded or failed). */
export const finishedItems = (task: TaskRecord): number =>
  task.items.filter((item) => item.status !== 'pending').length;

export interface TaskSettlement {
  id: string;
  status: 'completed' | 'failed';
  result: unknown;
  errors?: { code: string; message?: string }[];
  /** Sum charged; the rest of the estimate is released. */
  cost: Micros;
  at: string;
  /** The item whose finishing settles the task, recorded in the same journal write. */
  lastItem?: { index: number; item: ItemRecord };
  /** How many items had finished when the settlement was worked out (a cancel): refused if more have finished since. */
  finished?: number;
  /** What every item still pending becomes, in the same write (a cancel fails them with TASK_CANCELLED). */
  unfinishedItem?: ItemRecord;
  /** What prepare worked out, kept with this write when the task has none yet (see TaskRepo.recordItem). */
  prepared?: unknown;
  /**
   * Nobody is to be told of it (no webhook or endpoint would get its event): marked in this write, not in one of its
   * own.
   */
  noEvent?: boolean;
}

/** The event id of a settled task that needed none (nobody to tell). */
export const NO_EVENT = 'none';

/** The task as a settlement leaves it (the store checked that it applies). */
export function settledTask(task: TaskRecord, s: TaskSettlement): TaskRecord {
  const settled: TaskRecord = {
    ...task,
    items: settledItems(task.items, s),
    status: s.status,
    result: s.result,
    cost: s.cost,
    updatedAt: s.at,
    ...preparedOnce(task, s.prepared),
  };
  if (s.errors) settled.errors = s.errors;
  if (s.noEvent && !task.eventId) settled.eventId = NO_EVENT;
  return settled;
}

/**
 * What prepare worked out, carried by an item record or a settlement (TaskRepo.recordItem): kept
 * only when the task has none yet. Spread into the task as written.
 */
export function preparedOnce(task: Pick<TaskRecord, 'prepared'>, prepared: unknown): Pick<TaskRecord, 'prepared'> {
  return prepared === undefined || task.prepared !== undefined ? {} : { prepared };
}

/**
 * The task's items once settled: `lastItem` in its place, each item still pending as `unfinishedItem` says (else left
 * as it is).
 */
export function settledItems(
  items: readonly ItemRecord[],
  s: Pick<TaskSettlement, 'lastItem' | 'unfinishedItem'>,
): ItemRecord[] {
  const out = items.slice();
  if (s.lastItem) out[s.lastItem.index] = s.lastItem.item;
  if (s.unfinishedItem)
    for (const [index, item] of out.entries()) if (item.status === 'pending') out[index] = s.unfinishedItem;
  return out;
}

/** The model a task ran on, as `prepare` resolved it (image.generate, video.generate); null otherwise. */
export function modelOf(task: Pick<TaskRecord, 'prepared'>): string | null {
  const model = (task.prepared as { model?: unknown } | null | undefined)?.model;
  return typeof model === 'string' ? model : null;
}
