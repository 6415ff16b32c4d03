import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { eventMatches } from '../../../domain/event-kinds.js';
import type { AccountEvent } from '../../../engine/account-events.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute, requestCredential } from '../../route.js';
import { createStreamWakeup } from '../../stream-wakeup.js';
import { EventKind } from './schemas.js';

export const WebhookEventsQuery = z.object({
  events: z
    .string()
    .optional()
    .describe(
      'comma-separated event kinds to receive, as a webhook subscribes: `all`, `task.completed`, `task.failed`, `task.<type>.completed|failed`; default every kind',
    ),
});

/**
 * Events held for a stream whose client reads slower than they come; past it the stream ends (its client connects
 * again).
 */
const MAX_HELD = 1000;
/** The answers of an authentication that refuses the credential itself. */
const REFUSED: ReadonlySet<string> = new Set(['UNAUTHORIZED', 'TOKEN_EXPIRED', 'INVALID_TOKEN']);

const DESCRIPTION = [
  "Server-Sent Events (text/event-stream): the account's webhook events as they happen, for a receiver being developed where the service cannot reach it",
  '(`imgtask webhooks listen --forward-to URL` follows this stream and posts each event, signed, to a local URL).',
  'First a `ready` event (`data`: `{ accountId, events }`), then one unnamed event (`message`) per settled task: `id` is the event id, `data` the event',
  'exactly as a webhook receives it (`{ id, type, createdAt, data }`: docs/api/webhooks.md), for the kinds `?events=` names (default all).',
  'Live only: events of tasks settled while no stream was open are not sent again, and nothing is recorded or retried (dashboard webhooks are the durable way);',
  'tasks created with `webhook.dashboard: false` are left out; budget alerts and `webhook.test` are not on it.',
  'An idle stream sends a `: ping` comment every taskEvents.heartbeatMs (15 s) and checks its access token again each time: the stream ends once the token expires.',
  'The stream also ends when the server closes; reconnect. Errors before the stream starts are the usual JSON errors.',
].join(' ');

/** `?events=`: the kinds to receive (null: every kind), each checked as a webhook's `events` are. */
function kindsOf(text: string | undefined): string[] | null {
  if (text === undefined || text.trim() === '') return null;
  const kinds = text.split(',').map((kind) => kind.trim());
  for (const kind of kinds) {
    const parsed = EventKind.safeParse(kind);
    if (!parsed.success) throw new AppError('VALIDATION_ERROR', `events: ${parsed.error.issues[0].message}`);
  }
  return kinds.includes('all') ? null : kinds;
}

export function registerWebhooksEvents(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/webhook/events',
      summary: "The account's webhook events, live, as Server-Sent Events (what `imgtask webhooks listen` forwards)",
      description: DESCRIPTION,
      guard: { accept: ['accessToken'], scope: 'manage' },
      family: 'resource',
      status: 200,
      produces: 'text/event-stream',
      query: WebhookEventsQuery,
      errors: ['VALIDATION_ERROR'],
    },
    async (c, { principal }) => {
      const kinds = kindsOf(c.req.query('events'));
      const held: AccountEvent[] = [];
      let ended = false;
      const wakeup = createStreamWakeup();
      const unfollow = deps.accountEvents.follow(principal.accountId, {
        event: (event) => {
          if (!eventMatches(kinds, event.taskType, event.status)) return;
          if (held.length >= MAX_HELD) ended = true;
          else held.push(event);
          wakeup.wake();
        },
        end: () => {
          ended = true;
          wakeup.wake();
        },
      });
      const credential = requestCredential(c);
      // Only a refused credential ends it: a store hiccup is not the client's doing.
      const stillValid = () =>
        deps.auth.authenticate(credential).then(
          () => true,
          (err: unknown) => !(err instanceof AppError && REFUSED.has(err.code)),
        );
      const heartbeatMs = deps.config.current().taskEvents.heartbeatMs;
      // nginx would buffer the stream otherwise (and hold every event until the buffer fills).
      c.header('X-Accel-Buffering', 'no');
      return streamSSE(c, async (stream) => {
        const heartbeat = setInterval(async () => {
          if (await stillValid()) return void stream.write(': ping\n\n');
          ended = true;
          wakeup.wake();
        }, heartbeatMs);
        stream.onAbort(wakeup.wake);
        try {
          await stream.writeSSE({
            event: 'ready',
            data: JSON.stringify({ accountId: principal.accountId, events: kinds }),
          });
          while (!stream.aborted && !ended) {
            const next = held.shift();
            if (next) {
              await stream.writeSSE({ id: next.envelope.id, data: JSON.stringify(next.envelope) });
              continue;
            }
            await wakeup.sleep();
          }
        } finally {
          clearInterval(heartbeat);
          unfollow();
        }
      });
    },
  );
}
