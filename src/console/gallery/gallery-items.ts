import type { TaskRecord } from '../../store/records.js';

/** Where an item of the gallery came from, and what the grid and the full view show of it. */
export interface GalleryItem {
  taskId: string;
  /** The item's index in its task's result (images[], videos[]; 0 for a cut-out). */
  index: number;
  kind: 'image' | 'video';
  /** The stored image's (or video's) id, `img_…` / `vid_…`. */
  id: string;
  /** Its stored file name, `{id}.{ext}`: `/images/<file>` or `/videos/<file>` on this server. */
  file: string;
  width: number;
  height: number;
  /** What made it: the prompt of a generate, or a phrase for a cut-out. */
  prompt: string | null;
  negativePrompt: string | null;
  model: string | null;
  seed: number | null;
  /** The item's rating: its level, "failed", or null when none was asked. */
  rating: { level: string } | { failed: true } | null;
  taskType: string;
  apiKeyId: string | null;
  createdAt: string;
  metadata: unknown;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** `{width}x{height}` as two numbers (0 × 0 when absent). */
function dimensions(size: unknown): { width: number; height: number } {
  const match = typeof size === 'string' ? /^(\d+)x(\d+)$/.exec(size) : null;
  return match ? { width: Number(match[1]), height: Number(match[2]) } : { width: 0, height: 0 };
}

const STORED_FILE = /^((?:img|vid)_[0-9A-Za-z]+)\.[a-z0-9]+$/;

/**
 * The stored file a service URL names (`…/images/<file>` or `…/videos/<file>`), by its last path
 * segment alone: pages link to it on this origin, whatever host the public URL names.
 */
export function storedFileOf(serviceUrl: unknown, id: string): string | null {
  if (typeof serviceUrl !== 'string') return null;
  const path = serviceUrl.split(/[?#]/, 1)[0];
  const file = path.slice(path.lastIndexOf('/') + 1);
  return STORED_FILE.exec(file)?.[1] === id ? file : null;
}

function ratingOf(rating: unknown): GalleryItem['rating'] {
  if (!isObject(rating)) return null;
  if (rating.status === 'success' && typeof rating.level === 'string') return { level: rating.level };
  return { failed: true };
}

/** What a task's request and result say of all its items. */
interface Made {
  kind: GalleryItem['kind'];
  entries: unknown[];
  prompt: string | null;
  negativePrompt: string | null;
  model: string | null;
}

function madeBy(task: TaskRecord, request: Json, result: Json): Made | null {
  const prompted = (kind: Made['kind'], entries: unknown): Made => ({
    kind,
    entries: Array.isArray(entries) ? entries : [],
    prompt: text(request.prompt),
    negativePrompt: text(request.negative_prompt),
    model: text(result.model),
  });
  switch (task.type) {
    case 'image.generate':
      return prompted('image', result.images);
    case 'video.generate':
      return prompted('video', result.videos);
    case 'image.remove_background':
      return {
        kind: 'image',
        entries: [result.image],
        prompt: 'Background removed',
        negativePrompt: null,
        model: null,
      };
    default:
      return null;
  }
}

/**
 * A pending task has no result yet (a cancelled one, none at all): its succeeded items stand in for it (item i is the
 * result's entry i, as its type settles it).
 */
function resultSoFar(task: TaskRecord): Json {
  const entries = task.items.map((item) => (item.status === 'success' ? item.result : null));
  return { images: entries, videos: entries, image: entries[0] };
}

/**
 * Every image or video a task made, in result order, with the index it has there (failed items
 * are left out): a completed task's from its result, a pending or cancelled one's from the items
 * that succeeded. Items are built field by field, not spread: this runs for every task of every gallery
 * page, and V8 makes a spread with extra properties slow.
 */
export function galleryItemsOf(task: TaskRecord): GalleryItem[] {
  const result = task.status === 'completed' ? task.result : resultSoFar(task);
  if (!isObject(result)) return [];
  const request = isObject(task.request) ? task.request : {};
  const made = madeBy(task, request, result);
  if (!made) return [];
  const items: GalleryItem[] = [];
  made.entries.forEach((entry, index) => {
    if (!isObject(entry) || (entry.status !== undefined && entry.status !== 'success') || typeof entry.id !== 'string')
      return;
    const file = storedFileOf(entry.service_url, entry.id);
    if (!file) return;
    const { width, height } = dimensions(entry.size);
    items.push({
      taskId: task.id,
      index,
      kind: made.kind,
      id: entry.id,
      file,
      width,
      height,
      prompt: made.prompt,
      negativePrompt: made.negativePrompt,
      model: made.model,
      seed: typeof entry.seed === 'number' ? entry.seed : null,
      rating: task.type === 'image.generate' ? ratingOf(entry.rating) : null,
      taskType: task.type,
      apiKeyId: task.apiKeyId,
      createdAt: task.createdAt,
      metadata: request.metadata ?? null,
    });
  });
  return items;
}

/**
 * The stored image an `image.review` task reviewed (the id its `url` names), with its verdict; null for any other task
 * or a foreign URL.
 */
export function reviewOf(task: TaskRecord): { imageId: string; verdict: 'pass' | 'fail' } | null {
  if (task.type !== 'image.review' || task.status !== 'completed' || !isObject(task.result) || !isObject(task.request))
    return null;
  const verdict = task.result.verdict;
  const url = task.request.url;
  if ((verdict !== 'pass' && verdict !== 'fail') || typeof url !== 'string') return null;
  if (/^img_[0-9A-Za-z]+$/.test(url)) return { imageId: url, verdict };
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const match = /\/images\/(img_[0-9A-Za-z]+)\.[a-z0-9]+$/.exec(path);
  return match ? { imageId: match[1], verdict } : null;
}

/** The verdicts the given tasks hold, by image id; the newest review of an image wins (tasks come newest first). */
export function verdictsIn(tasks: readonly TaskRecord[]): Map<string, 'pass' | 'fail'> {
  const verdicts = new Map<string, 'pass' | 'fail'>();
  for (const task of tasks) {
    const review = reviewOf(task);
    if (review && !verdicts.has(review.imageId)) verdicts.set(review.imageId, review.verdict);
  }
  return verdicts;
}
