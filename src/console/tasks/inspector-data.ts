import type { TaskRecord } from '../../engine/task-registry.js';
import { toProgressView } from '../../engine/task-views.js';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { WebhookService } from '../../services/webhooks/webhook-service.js';
import type { ConsoleDeps } from '../console-deps.js';
import { principalOf } from '../console-http.js';
import { type GalleryItem, galleryItemsOf } from '../gallery/gallery-items.js';
import { verdictsSince } from '../gallery/recent-reviews.js';

export type ProgressView = ReturnType<typeof toProgressView>;
export type TaskDeliveries = Awaited<ReturnType<WebhookService['taskDeliveries']>>;

/** What the inspector shows of one task. */
export interface InspectorData {
  task: TaskRecord;
  /** The account's live keys (the key's name, and run again's choice). */
  keys: ApiKeyView[];
  /** The images and videos its items made so far (the gallery's items), each item's by its index. */
  outputs: Map<number, GalleryItem>;
  /** Review verdicts of those images, by image id. */
  verdicts: Map<string, 'pass' | 'fail'>;
  /** The event sent and its deliveries; null while none is recorded. */
  sent: TaskDeliveries;
  /**
   * While pending: where it stands, and its live status stream (with a PAT for this task: EventSource cannot send a
   * header).
   */
  live?: { progress: ProgressView; eventsUrl: string };
}

/**
 * Reads one task of the session's account (another account's: TASK_NOT_FOUND, the 404 page) and all the inspector
 * shows.
 */
export async function loadInspector(
  deps: ConsoleDeps,
  session: ConsoleSession & { accountId: string },
  id: string,
): Promise<InspectorData> {
  const task = await deps.tasks.getOwned(principalOf(session), id);
  const outputs = new Map(galleryItemsOf(task).map((item) => [item.index, item]));
  const hasImages = [...outputs.values()].some((item) => item.kind === 'image');
  const [keys, sent, verdicts] = await Promise.all([
    deps.apiKeys.list(session.accountId),
    deps.webhooks.taskDeliveries(session.accountId, task.id),
    hasImages ? verdictsSince(deps.tasks, session.accountId, task.createdAt) : new Map<string, 'pass' | 'fail'>(),
  ]);
  const data: InspectorData = { task, keys, outputs, verdicts, sent };
  if (task.status === 'pending') {
    const pat = await deps.tokens.issuePat(session.accountId, task.id);
    data.live = {
      progress: toProgressView(task, deps.tasks.liveProgress(task.id)),
      eventsUrl: `/tasks/${encodeURIComponent(task.id)}/events?token=${encodeURIComponent(pat)}`,
    };
  }
  return data;
}
