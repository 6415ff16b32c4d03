import { TASK_STATUSES, type TaskStatus } from '../../domain/task-status.js';
import type { TaskListQuery } from '../../store/store-contract.js';

/** Tasks per page unless the URL says otherwise (`limit`, 1..100, as GET /tasks takes). */
export const PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

const CURSOR = /^tsk_[0-9A-Za-z]+$/;
const KEY_ID = /^key_[0-9A-Za-z]+$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** As GET /tasks bounds a `metadata.<key>` filter's value. */
const MAX_METADATA_TEXT = 256;

/** The list's filters as the form shows them (text, "" for any): a filtered view is its URL. */
export interface TaskFilters {
  type: string;
  status: string;
  key: string;
  /** Days (YYYY-MM-DD, UTC), both included. */
  from: string;
  to: string;
  /** `key=value` texts, one per metadata filter. */
  metadata: string[];
  limit: number;
}

export interface TaskListRequest {
  filters: TaskFilters;
  /** The cursors of an older page (`before`) or a newer one (`after`). */
  before?: string;
  after?: string;
  /** The store's query: the filters that parsed, without the cursors. */
  query: TaskListQuery;
  /** Filters that did not parse (left out of the query), each as a sentence. */
  problems: string[];
}

const isStatus = (text: string): text is TaskStatus => (TASK_STATUSES as readonly string[]).includes(text);

/** The instant a UTC day starts, `days` after the one given; undefined for a text that is not a day. */
function dayStart(text: string, days = 0): string | undefined {
  if (!DAY.test(text)) return undefined;
  const millis = Date.parse(`${text}T00:00:00.000Z`);
  if (Number.isNaN(millis) || new Date(millis).toISOString().slice(0, 10) !== text) return undefined;
  return new Date(millis + days * 86_400_000).toISOString();
}

/** Reads the list's URL: the filters, the cursor, and the store query they make. */
export function readTaskListRequest(params: URLSearchParams): TaskListRequest {
  const text = (name: string) => (params.get(name) ?? '').trim();
  const problems: string[] = [];
  const limitText = text('limit');
  const limit =
    /^\d{1,3}$/.test(limitText) && Number(limitText) >= 1 && Number(limitText) <= MAX_PAGE_SIZE
      ? Number(limitText)
      : PAGE_SIZE;
  const filters: TaskFilters = {
    type: text('type'),
    status: text('status'),
    key: text('key'),
    from: text('from'),
    to: text('to'),
    metadata: params
      .getAll('metadata')
      .map((pair) => pair.trim())
      .filter(Boolean),
    limit,
  };
  const query: TaskListQuery = { limit };
  if (filters.type) {
    if (filters.type.length <= 64) query.type = filters.type;
    else problems.push('Type: no task type has so long a name.');
  }
  if (filters.status) {
    if (isStatus(filters.status)) query.status = filters.status;
    else problems.push(`Status: choose pending, completed or failed.`);
  }
  if (filters.key) {
    if (KEY_ID.test(filters.key)) query.apiKeyId = filters.key;
    else problems.push('Key: not a key id (key_…).');
  }
  if (filters.from) {
    query.createdAfter = dayStart(filters.from);
    if (!query.createdAfter) problems.push('From: not a date (YYYY-MM-DD).');
  }
  if (filters.to) {
    // The "to" day is included: tasks created before the next day starts.
    query.createdBefore = dayStart(filters.to, 1);
    if (!query.createdBefore) problems.push('To: not a date (YYYY-MM-DD).');
  }
  const metadata: Record<string, string> = {};
  for (const pair of filters.metadata) {
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    const value = at > 0 ? pair.slice(at + 1).trim() : '';
    if (!key || key.length > MAX_METADATA_TEXT || value.length > MAX_METADATA_TEXT)
      problems.push('Metadata: write each filter as key=value (at most 256 characters each).');
    else metadata[key] = value;
  }
  if (Object.keys(metadata).length > 0) query.metadata = metadata;
  const before = text('before');
  const after = text('after');
  const request: TaskListRequest = { filters, query, problems };
  if (CURSOR.test(before)) request.before = before;
  else if (CURSOR.test(after)) request.after = after;
  return request;
}

/** Whether any filter is set (an empty list then means "none match", not "none yet"). */
export const hasFilters = (filters: TaskFilters): boolean =>
  Boolean(filters.type || filters.status || filters.key || filters.from || filters.to || filters.metadata.length > 0);

/** The query string of the list with these filters, at a cursor: `?type=…&before=…`, or "" for none. */
export function searchOf(filters: TaskFilters, cursor: { before?: string; after?: string } = {}): string {
  const params = new URLSearchParams();
  for (const name of ['type', 'status', 'key', 'from', 'to'] as const)
    if (filters[name]) params.set(name, filters[name]);
  for (const pair of filters.metadata) params.append('metadata', pair);
  if (filters.limit !== PAGE_SIZE) params.set('limit', String(filters.limit));
  if (cursor.before) params.set('before', cursor.before);
  else if (cursor.after) params.set('after', cursor.after);
  const search = params.toString();
  return search ? `?${search}` : '';
}
