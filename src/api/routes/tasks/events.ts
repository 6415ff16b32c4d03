import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { type LiveProgress, progressKey } from '../../../engine/live-progress.js';
import type { TaskRecord } from '../../../engine/task-registry.js';
import { taskVersion } from '../../../engine/task-stream.js';
import { toProgressView } from '../../../engine/task-views.js';
import type { Principal } from '../../../services/auth.js';
import type { TaskPreview } from '../../../services/event-bus.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute, requestCredential } from '../../route.js';
import { createStreamWakeup } from '../../stream-wakeup.js';
import { taskBody, taskResultBody } from './schemas.js';

export const TaskEventsQuery = z.object({
  token: z
    .string()
    .optional()
    .describe(
      "the task's public access token (pat_…), for clients that cannot set headers (EventSource); API keys only in the Authorization header",
    ),
});

export const TaskEventsHeaders = z.object({
  'Last-Event-ID': z
    .string()
    .optional()
    .describe(
      'the id of the last event received (EventSource sends it when it reconnects): the stream sends the current state as a `task` event only if it is newer, as a `progress` event (same id) if it is that one, and answers 204 after the settled event',
    ),
});

/** The answers of an authentication that refuses the credential itself. */
const REFUSED: ReadonlySet<string> = new Set(['UNAUTHORIZED', 'TOKEN_EXPIRED', 'INVALID_TOKEN']);

/**
 * An event's data: the task as the credential may read it (the full task with an API key, its result view with a PAT),
 * and its progress.
 */
const eventData = (principal: Principal, task: TaskRecord, live: LiveProgress | undefined): string =>
  JSON.stringify({
    ...(principal.kind === 'pat' ? taskResultBody(task) : taskBody(task)),
    progress: toProgressView(task, live),
  });

/** A `preview` event's data: the item's index and its newest preview, inline. */
const previewData = ({ index, mimeType, data }: TaskPreview): string =>
  JSON.stringify({ index, mimeType, data: data.toString('base64') });

const DESCRIPTION = [
  'Server-Sent Events (text/event-stream). Each event is the whole current state: `data` is the task as GET /tasks/{id} shows it',
  '(with a PAT: as GET /tasks/{id}/result shows it) plus `progress` { total, finished, succeeded, failed, items: [{ status, error?, fraction? }], queuePosition?, estimatedStartAt?, estimatedFinishAt? }',
  '(the live fields while pending: see GET /tasks/{id}).',
  "Events: `task` first (the current state), then one on every change (an item finished); `progress` when only the live progress changed (a running item's fraction,",
  'the queue position; at most a few per second); `preview` while a running item sends live previews (ComfyUI models: `{ index, mimeType, data }`, data the image in base64,',
  'at most two a second per item, never stored: absent from every other answer); `settled` (the final state) last, after which the stream ends.',
  'Every event has an `id`: the number of finished items, plus one once settled; a `progress` event carries the id of the state it refines. Reconnecting with `Last-Event-ID`',
  'sends the current state as a `task` event if it is newer, else as a `progress` event with that same id (so no finished item or settlement is missed or sent twice);',
  'once the settled event was received the answer is 204 (EventSource stops reconnecting).',
  'An idle stream sends a `: ping` comment every taskEvents.heartbeatMs (15 s), and checks its credential again each time: the stream ends once the key is deleted',
  'or expires (a rotated key: at the end of its grace) or the PAT expires; reconnecting then answers 401. Errors before the stream starts are the usual JSON errors.',
].join(' ');

export function registerTasksEvents(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/tasks/:id/events',
      summary:
        "A task's live status as Server-Sent Events, until it settles (API key, or a PAT for this task, also as ?token=)",
      description: DESCRIPTION,
      guard: { accept: ['apiKey', 'pat'], scope: 'tasks:read', taskParam: 'id' },
      patInQuery: true,
      family: 'resource',
      status: 200,
      produces: 'text/event-stream',
      query: TaskEventsQuery,
      headers: TaskEventsHeaders,
      errors: ['TASK_NOT_FOUND'],
      also: [
        {
          status: 204,
          description:
            'Last-Event-ID is the settled event of this task: nothing more will come (no body; EventSource stops reconnecting)',
        },
      ],
    },
    async (c, { principal }) => {
      const id = c.req.param('id')!;
      // Changes from now on are queued, so none falls between the read below and the stream.
      const queue: (TaskRecord | 'end')[] = [];
      const wakeup = createStreamWakeup();
      const push = (next: TaskRecord | 'end') => {
        queue.push(next);
        wakeup.wake();
      };
      // A change of live progress is a flag, not a queued state: however many come meanwhile, one read of it.
      let progressed = false;
      /** Running items' previews not written yet, the newest of each. */
      const previews = new Map<number, TaskPreview>();
      const unwatch = deps.taskStreams.watch(id, {
        update: push,
        progress: () => {
          progressed = true;
          wakeup.wake();
        },
        preview: (preview) => {
          // Only the newest of each item waits to be written.
          previews.set(preview.index, preview);
          wakeup.wake();
        },
        end: () => push('end'),
      });
      let task: TaskRecord;
      try {
        task = await deps.tasks.getReadable(principal, id);
      } catch (err) {
        unwatch();
        throw err;
      }
      const resumed = c.req.header('last-event-id');
      const lastSeen = resumed !== undefined && /^\d{1,9}$/.test(resumed) ? Number(resumed) : -1;
      const version = taskVersion(task);
      if (task.status !== 'pending' && lastSeen === version) {
        unwatch();
        return c.body(null, 204);
      }
      // An id past the task's version is not one of its events: start afresh.
      let sent = lastSeen <= version ? lastSeen : -1;
      // Resumed at the state it has: that state again, as a progress event of the same id (the current live progress),
      // never as a second `task` event.
      progressed = task.status === 'pending' && sent === version;
      /** The state the events sent so far show (version `sent`), and the live progress sent with it. */
      let shown = task;
      let shownProgress: string | undefined;
      const liveOf = (state: TaskRecord) => (state.status === 'pending' ? deps.tasks.liveProgress(id) : undefined);
      const heartbeatMs = deps.config.current().taskEvents.heartbeatMs;
      // Checked again at every heartbeat: a stream ends once its key is deleted or expires (a rotated key: at the
      // grace's end) or its PAT expires.
      const credential = requestCredential(c, true);
      const stillValid = () =>
        deps.auth.authenticate(credential).then(
          () => true,
          // Only a refused credential ends it: a store hiccup is not the client's doing.
          (err: unknown) => !(err instanceof AppError && REFUSED.has(err.code)),
        );
      // nginx would buffer the stream otherwise (and hold every event until the buffer fills).
      c.header('X-Accel-Buffering', 'no');
      return streamSSE(c, async (stream) => {
        let revoked = false;
        const heartbeat = setInterval(async () => {
          if (await stillValid()) return void stream.write(': ping\n\n');
          revoked = true;
          wakeup.wake();
        }, heartbeatMs);
        stream.onAbort(() => wakeup.wake());
        try {
          let next: TaskRecord | 'end' | undefined = task;
          while (!stream.aborted && !revoked && next !== 'end') {
            if (next) {
              const at = taskVersion(next);
              const settled = next.status !== 'pending';
              if (at > sent) {
                sent = at;
                shown = next;
                const live = liveOf(next);
                shownProgress = progressKey(live);
                await stream.writeSSE({
                  event: settled ? 'settled' : 'task',
                  id: String(at),
                  data: eventData(principal, next, live),
                });
              }
              if (settled) break;
            }
            if (progressed && queue.length === 0) {
              progressed = false;
              const live = liveOf(shown);
              const key = progressKey(live);
              // The first one on a resumed stream goes out whatever it holds: it is the current state.
              if (shown.status === 'pending' && (key !== shownProgress || shownProgress === undefined)) {
                shownProgress = key;
                await stream.writeSSE({ event: 'progress', id: String(sent), data: eventData(principal, shown, live) });
              }
            }
            if (previews.size > 0 && queue.length === 0) {
              const due = [...previews.values()];
              previews.clear();
              // Only of items still running as the state sent shows them: an item that finished has its output instead.
              for (const preview of due)
                if (shown.status === 'pending' && shown.items[preview.index]?.status === 'pending')
                  await stream.writeSSE({ event: 'preview', id: String(sent), data: previewData(preview) });
            }
            next = queue.shift();
            if (next === undefined && !progressed && previews.size === 0 && !stream.aborted && !revoked) {
              await wakeup.sleep();
            }
          }
        } finally {
          clearInterval(heartbeat);
          unwatch();
        }
      });
    },
  );
}
