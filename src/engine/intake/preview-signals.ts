import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import type { LivePreview } from '../../domain/media-types.js';
import type { EventBus, TaskPreview } from '../../services/event-bus.js';
import type { StoreSignals } from '../../store/store-contract.js';

/** Where running items' previews go between the processes sharing one database. */
export const PREVIEW_CHANNEL = 'imgtask_task_preview';

/**
 * The most bytes of image a notification carries: in base64 (4/3 larger) with its header it
 * stays under PostgreSQL's 8000-byte payload limit. A larger preview goes across made smaller.
 */
export const MAX_NOTIFIED_PREVIEW_BYTES = 5000;

/** Ever smaller JPEGs, tried in turn until one fits a notification. */
const SHRINK_STEPS = [
  { side: 256, quality: 70 },
  { side: 160, quality: 60 },
  { side: 96, quality: 50 },
];

/**
 * The preview as it is when it fits a notification, else a smaller JPEG of it; undefined when none fits (or it does not
 * decode).
 */
export async function fitForNotification(preview: LivePreview): Promise<LivePreview | undefined> {
  if (preview.data.length <= MAX_NOTIFIED_PREVIEW_BYTES) return preview;
  try {
    for (const { side, quality } of SHRINK_STEPS) {
      const data = await sharp(preview.data)
        .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality })
        .toBuffer();
      if (data.length <= MAX_NOTIFIED_PREVIEW_BYTES) return { data, mimeType: 'image/jpeg' };
    }
  } catch {
    // Not an image sharp reads: it stays in the process that has it.
  }
  return undefined;
}

const MIME_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/webp']);

/**
 * Relays running items' previews to the other processes of a fleet: each preview of this
 * process's runner (`task:preview`, already at most two a second per item) notifies
 * `imgtask_task_preview` as `<process> <task id> <index> <media type> <base64>`, made smaller
 * first when it would not fit; every other process hands it to its live status streams
 * (`task:preview-elsewhere`). Nothing is kept: a process with no stream on the task drops it.
 * Answers the function that stops relaying.
 */
export async function bridgePreviews(
  signals: Pick<StoreSignals, 'notify' | 'listen'>,
  events: EventBus,
  log: (message: string) => void,
): Promise<() => void> {
  const origin = randomBytes(4).toString('hex');
  let open = true;
  const off = events.on('task:preview', async ({ taskId, index, mimeType, data }) => {
    const fitted = await fitForNotification({ mimeType, data });
    if (!fitted || !open) return;
    await signals
      .notify(PREVIEW_CHANNEL, `${origin} ${taskId} ${index} ${fitted.mimeType} ${fitted.data.toString('base64')}`)
      .catch((err: Error) => log(`postgres: ${PREVIEW_CHANNEL} not sent (${err.message})`));
  });
  await signals.listen(PREVIEW_CHANNEL, (payload) => {
    const preview = parsePreview(payload, origin);
    if (open && preview) events.emit('task:preview-elsewhere', preview);
  });
  return () => {
    open = false;
    off();
  };
}

/** A notification back into a preview; undefined for this process's own or one that does not read as a preview. */
export function parsePreview(payload: string, origin: string): TaskPreview | undefined {
  const [from, taskId, index, mimeType, base64] = payload.split(' ');
  if (from === origin || !taskId || !/^\d{1,6}$/.test(index ?? '') || !MIME_TYPES.has(mimeType) || !base64)
    return undefined;
  const data = Buffer.from(base64, 'base64');
  return data.length > 0
    ? { taskId, index: Number(index), mimeType: mimeType as TaskPreview['mimeType'], data }
    : undefined;
}
