import type { TaskProgress } from '../api/routes/tasks/schemas.js';

/** A running item's live preview, as a task's stream sends it (`preview` events): the image decoded from base64. */
export interface TaskPreview {
  index: number;
  mimeType: string;
  data: Buffer;
}

/** A `preview` event's data as a preview; undefined when it does not read as one. */
function previewOf(data: string): TaskPreview | undefined {
  const { index, mimeType, data: base64 } = JSON.parse(data) as { index?: unknown; mimeType?: unknown; data?: unknown };
  if (typeof index !== 'number' || typeof mimeType !== 'string' || typeof base64 !== 'string') return undefined;
  return { index, mimeType, data: Buffer.from(base64, 'base64') };
}

/** One Server-Sent Event, as the API's streams send them. */
interface StreamEvent {
  event: string;
  id?: string;
  data: string;
}

/** The events of a text/event-stream body, as they arrive (comments such as `: ping` are skipped). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer = (buffer + decoder.decode(chunk, { stream: true })).replace(/\r\n?/g, '\n');
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: StreamEvent = { event: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.event = value;
        else if (field === 'id') event.id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { ...event, data: data.join('\n') };
    }
  }
}

/**
 * Follows a task over its live status stream until the settled event. Answers true when it
 * settled, false when the stream could not be used (the route absent on an older server, an
 * error answer, a stream that ended or broke first): the caller then polls, which also gives
 * the authoritative error. `onStatus` hears the status of each event, `onProgress` its progress
 * (items finished, running items' fractions, queue position, estimates), `onPreview` each live
 * preview of a running item (`preview` events, sent by models that make them).
 */
export async function followTaskEvents(options: {
  url: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
  timeoutMs: number;
  onStatus?: (status: string) => void;
  onProgress?: (progress: TaskProgress) => void;
  onPreview?: (preview: TaskPreview) => void;
}): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    const res = await options.fetch(options.url, {
      headers: { ...options.headers, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (!res.ok || !res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel().catch(() => undefined);
      return false;
    }
    for await (const event of readEvents(res.body)) {
      if (event.event === 'preview') {
        const preview = options.onPreview && previewOf(event.data);
        if (preview) options.onPreview?.(preview);
        continue;
      }
      const { status, progress } = JSON.parse(event.data) as { status?: unknown; progress?: TaskProgress };
      if (typeof status === 'string') options.onStatus?.(status);
      if (progress && typeof progress === 'object') options.onProgress?.(progress);
      if (event.event === 'settled') return true;
    }
    return false;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    // Done with it (settled, or given up on): the connection is not kept waiting for the server to end it.
    controller.abort();
  }
}
