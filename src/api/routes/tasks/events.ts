import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { taskVersion } from '../../../engine/task-stream.js';
import type { TaskRecord } from '../../../engine/task-types.js';
import type { Principal } from '../../../services/auth.js';
import { addRoute, requestCredential } from '../../route.js';
import type { ApiDeps, ApiEnv } from '../../types.js';
import { taskBody, taskResultBody } from './schemas.js';

export const TaskEventsQuery = z.object({
  token: z.string().optional().describe("the task's public access token (pat_…), for clients that cannot set headers (EventSource); API keys only in the Authorization header"),
});

export const TaskEventsHeaders = z.object({
  'Last-Event-ID': z
    .string()
    .optional()
    .describe('the id of the last event received (EventSource sends it when it reconnects): the stream sends the current state only if it is newer, and answers 204 after the settled event'),
});

/** The answers of an authentication that refuses the credential itself. */
const REFUSED: ReadonlySet<string> = new Set(['UNAUTHORIZED', 'TOKEN_EXPIRED', 'INVALID_TOKEN']);

/** Per-item progress, as a stream shows it beside the task. */
const progressOf = (task: TaskRecord) => {
  let succeeded = 0;
  let failed = 0;
  const items = task.items.map((item) => {
    if (item.status === 'success') succeeded++;
    else if (item.status === 'failed') failed++;
    return item.error ? { status: item.status, error: item.error } : { status: item.status };
  });
  return { total: items.length, finished: succeeded + failed, succeeded, failed, items };
};

/** An event's data: the task as the credential may read it (the full task with an API key, its result view with a PAT), and its progress. */
const eventData = (principal: Principal, task: TaskRecord): string => JSON.stringify({ ...(principal.kind === 'pat' ? taskResultBody(task) : taskBody(task)), progress: progressOf(task) });

const DESCRIPTION = [
  'Server-Sent Events (text/event-stream). Each event is the whole current state: `data` is the task as GET /tasks/{id} shows it',
  '(with a PAT: as GET /tasks/{id}/result shows it) plus `progress` { total, finished, succeeded, failed, items: [{ status, error? }] }.',
  'Events: `task` first (the current state), then one on every change (an item finished); `settled` (the final state) last, after which the stream ends.',
  'Every event has an `id`: the number of finished items, plus one once settled. Reconnecting with `Last-Event-ID` sends the current state only if it is newer',
  '(so nothing is missed and nothing repeated); once the settled event was received the answer is 204 (EventSource stops reconnecting).',
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
      summary: "A task's live status as Server-Sent Events, until it settles (API key, or a PAT for this task, also as ?token=)",
      description: DESCRIPTION,
      guard: { accept: ['apiKey', 'pat'], scope: 'tasks:read', taskParam: 'id' },
      patInQuery: true,
      family: 'resource',
      status: 200,
      produces: 'text/event-stream',
      query: TaskEventsQuery,
      headers: TaskEventsHeaders,
      errors: ['TASK_NOT_FOUND'],
      also: [{ status: 204, description: 'Last-Event-ID is the settled event of this task: nothing more will come (no body; EventSource stops reconnecting)' }],
    },
    async (c, { principal }) => {
      const id = c.req.param('id')!;
      // Changes from now on are queued, so none falls between the read below and the stream.
      const queue: (TaskRecord | 'end')[] = [];
      let wake: (() => void) | undefined;
      const push = (next: TaskRecord | 'end') => {
        queue.push(next);
        wake?.();
      };
      const unwatch = deps.taskStreams.watch(id, { update: push, end: () => push('end') });
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
      const heartbeatMs = deps.config.current().taskEvents.heartbeatMs;
      // Checked again at every heartbeat: a stream ends once its key is deleted or expires (a rotated key: at the grace's end) or its PAT expires.
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
          wake?.();
        }, heartbeatMs);
        stream.onAbort(() => wake?.());
        try {
          let next: TaskRecord | 'end' | undefined = task;
          while (!stream.aborted && !revoked && next !== 'end') {
            if (next) {
              const at = taskVersion(next);
              const settled = next.status !== 'pending';
              if (at > sent) {
                sent = at;
                await stream.writeSSE({ event: settled ? 'settled' : 'task', id: String(at), data: eventData(principal, next) });
              }
              if (settled) break;
            }
            next = queue.shift();
            if (next === undefined && !stream.aborted && !revoked) {
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = undefined;
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
