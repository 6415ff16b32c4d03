import { AppError } from '../../domain/errors.js';
import type { TaskService } from '../../engine/task-service.js';
import type { Principal } from '../../services/auth.js';
import type { TaskRecord } from '../../store/records.js';
import type { TaskListQuery } from '../../store/store-contract.js';
import { type GalleryItem, galleryItemsOf, verdictsIn } from './gallery-items.js';

/** The gallery's filters, as its GET form sends them (empty: any). */
export interface GalleryFilters {
  model: string;
  rating: string;
  key: string;
  from: string;
  to: string;
}

/** Where a page starts: item `index` of task `taskId` (null: past that task), then the tasks older than it. */
export interface GalleryCursor {
  taskId: string;
  index: number | null;
}

export const DEFAULT_PAGE_SIZE = 48;
const MAX_PAGE_SIZE = 96;
/**
 * Reads of a page of tasks at most, when filters applied in memory (model, rating) or tasks without images leave a page
 * short.
 */
const MAX_READS = 3;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CURSOR = /^(tsk_[0-9A-Za-z]+)(?:\.(\d{1,4}))?$/;

export const cursorText = (cursor: GalleryCursor): string =>
  cursor.index === null ? cursor.taskId : `${cursor.taskId}.${cursor.index}`;

/** The filters, cursor and page size of a gallery URL's query; VALIDATION_ERROR naming what is wrong. */
export function parseGalleryQuery(query: Record<string, string | undefined>): {
  filters: GalleryFilters;
  cursor: GalleryCursor | null;
  per: number;
} {
  const field = (name: string) => (query[name] ?? '').trim().slice(0, 200);
  const filters: GalleryFilters = {
    model: field('model'),
    rating: field('rating'),
    key: field('key'),
    from: field('from'),
    to: field('to'),
  };
  for (const name of ['from', 'to'] as const) {
    const value = filters[name];
    if (value && (!DATE.test(value) || Number.isNaN(Date.parse(value))))
      throw new AppError('VALIDATION_ERROR', `${name === 'from' ? 'From' : 'To'}: a date as YYYY-MM-DD`);
  }
  let cursor: GalleryCursor | null = null;
  if (query.cursor) {
    const match = CURSOR.exec(query.cursor);
    if (!match)
      throw new AppError('VALIDATION_ERROR', 'this page link is not one of the gallery’s: start again from the newest');
    cursor = { taskId: match[1], index: match[2] === undefined ? null : Number(match[2]) };
  }
  const per = query.per === undefined || query.per === '' ? DEFAULT_PAGE_SIZE : Number(query.per);
  if (!Number.isInteger(per) || per < 1 || per > MAX_PAGE_SIZE)
    throw new AppError('VALIDATION_ERROR', `per: a page size from 1 to ${MAX_PAGE_SIZE}`);
  return { filters, cursor, per };
}

/** The day after a YYYY-MM-DD date, as an ISO instant (the "to" date is inclusive). */
const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00.000Z`) + 86_400_000).toISOString();

/** The configured model ids: a model filter reads only the type its model makes. */
export interface GalleryModels {
  image: ReadonlySet<string>;
  video: ReadonlySet<string>;
}

/** The task type a model's images come from; none when an image and a video model share the id. */
function typeOfModel(model: string, models: GalleryModels): string | undefined {
  if (models.image.has(model) && models.video.has(model)) return undefined;
  return models.video.has(model) ? 'video.generate' : 'image.generate';
}

export interface GalleryPage {
  items: GalleryItem[];
  /** Review verdicts the page's own tasks hold, by image id. */
  verdicts: Map<string, 'pass' | 'fail'>;
  next: GalleryCursor | null;
}

/**
 * One page of the account's gallery, newest first, through the same task list call as
 * `GET /tasks` (settled tasks, the date range, the key and the type in the store's query),
 * about one page of tasks per page: never the whole history. Model and rating are checked
 * here, on the tasks read; the model names the type to read (image or video generates).
 */
export async function readGalleryPage(
  tasks: Pick<TaskService, 'list' | 'getOwned'>,
  principal: Principal,
  options: { filters: GalleryFilters; cursor: GalleryCursor | null; per: number; models: GalleryModels },
): Promise<GalleryPage> {
  const { filters, cursor, per } = options;
  const type = filters.rating
    ? 'image.generate'
    : filters.model
      ? typeOfModel(filters.model, options.models)
      : undefined;
  const query: Omit<TaskListQuery, 'limit' | 'before'> = { status: 'completed', type };
  if (filters.from) query.createdAfter = `${filters.from}T00:00:00.000Z`;
  if (filters.to) query.createdBefore = dayAfter(filters.to);
  if (filters.key) query.apiKeyId = filters.key;
  /** What the store's query checks, for the task a cursor names (read by id, not through the query). */
  const inQuery = (task: TaskRecord) =>
    (query.type === undefined || task.type === query.type) &&
    (query.apiKeyId === undefined || task.apiKeyId === query.apiKeyId) &&
    (query.createdAfter === undefined || task.createdAt >= query.createdAfter) &&
    (query.createdBefore === undefined || task.createdAt < query.createdBefore);
  const wanted = (item: GalleryItem) =>
    (!filters.model || item.model === filters.model) &&
    (!filters.rating || (item.rating !== null && 'level' in item.rating && item.rating.level === filters.rating));

  const items: GalleryItem[] = [];
  const read: TaskRecord[] = [];
  let next: GalleryCursor | null = null;
  /**
   * Takes the task's wanted items from `from` on; false once the page is full (and `next` says where the following one
   * starts).
   */
  const take = (task: TaskRecord, from: number): boolean => {
    for (const item of galleryItemsOf(task)) {
      if (item.index < from || !wanted(item)) continue;
      if (items.length === per) {
        next = { taskId: task.id, index: item.index };
        return false;
      }
      items.push(item);
    }
    return true;
  };

  let before = cursor?.taskId;
  if (cursor && cursor.index !== null) {
    // The task the cursor names is read as its owner's: another account's id is not found.
    const task = await tasks.getOwned(principal, cursor.taskId);
    read.push(task);
    if (inQuery(task)) take(task, cursor.index);
  }
  for (let reads = 0; next === null && reads < MAX_READS; reads++) {
    const page = await tasks.list(principal.accountId, { ...query, limit: per, before });
    read.push(...page.tasks);
    for (const task of page.tasks) if (!take(task, 0)) break;
    const last = page.tasks.at(-1);
    if (next !== null || !page.more || !last) break;
    before = last.id;
    // Older tasks remain: past the last task read is where the next page starts, unless another read fills this one.
    if (items.length === per || reads === MAX_READS - 1) next = { taskId: last.id, index: null };
  }
  return { items, verdicts: verdictsIn(read), next };
}
