import { readEvents } from './task-events.js';

/** What GET /webhook/events sends: `ready` once, then each event, its `body` exactly as a webhook receives it. */
export type WebhookStreamEvent =
  | { kind: 'ready'; accountId: string }
  | { kind: 'event'; id: string; type: string; taskId?: string; body: string };

/** The events of a GET /webhook/events body, as they arrive (comments such as `: ping` are skipped). */
export async function* webhookStreamEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<WebhookStreamEvent> {
  for await (const event of readEvents(body)) {
    if (event.event === 'ready') {
      const { accountId } = JSON.parse(event.data) as { accountId: string };
      yield { kind: 'ready', accountId };
    } else if (event.event === 'message') {
      const { id, type, data } = JSON.parse(event.data) as { id: string; type: string; data?: { taskId?: string } };
      yield { kind: 'event', id, type, taskId: data?.taskId, body: event.data };
    }
  }
}
