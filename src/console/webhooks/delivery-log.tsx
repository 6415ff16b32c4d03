/** @jsxImportSource hono/jsx */
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { DeliveryView } from '../../services/webhooks/delivery-log.js';
import { PostForm } from '../components/post-form.js';
import { Table } from '../components/table.js';
import { When } from '../components/when.js';

type Attempt = DeliveryView['attempts'][number];

function AttemptLine({ attempt }: { attempt: Attempt }) {
  const answer = attempt.status === null ? 'no answer' : `HTTP ${attempt.status}`;
  return (
    <li>
      <When at={attempt.at} />
      {` · ${answer} · ${attempt.latencyMs} ms`}
      {attempt.error && <span class="health-problem">{` · ${attempt.error}`}</span>}
    </li>
  );
}

/** A webhook's deliveries, newest first, with every attempt and a Redeliver button each. */
export function DeliveryLog({
  session,
  webhookId,
  deliveries,
}: {
  session: ConsoleSession;
  webhookId: string;
  deliveries: readonly DeliveryView[];
}) {
  if (deliveries.length === 0)
    return (
      <p class="muted">
        No deliveries yet. Send a test event to check the endpoint; settled tasks are delivered here as they come.
      </p>
    );
  return (
    <Table
      class="deliveries"
      caption="Deliveries, newest first"
      columns={['Time', 'Event', 'Status', 'Attempts', 'Action']}
    >
      {deliveries.map((delivery) => (
        <tr id={`delivery-${delivery.id}`}>
          <th scope="row">
            <When at={delivery.createdAt} />
          </th>
          <td>
            {delivery.eventType}
            <br />
            <span class="muted mono">{delivery.eventId}</span>
          </td>
          <td>
            <span class={`badge ${delivery.status}`}>{delivery.status}</span>
            {delivery.nextAttemptAt && (
              <p class="muted">
                next attempt <When at={delivery.nextAttemptAt} />
              </p>
            )}
          </td>
          <td>
            {delivery.attempts.length === 0 ? (
              <span class="muted">none yet</span>
            ) : (
              <ul class="attempts">
                {delivery.attempts.map((attempt) => (
                  <AttemptLine attempt={attempt} />
                ))}
              </ul>
            )}
          </td>
          <td>
            <PostForm session={session} action={`/console/webhooks/${webhookId}/deliveries/${delivery.id}/redeliver`}>
              <button
                type="submit"
                class="quiet"
                aria-label={`Redeliver ${delivery.eventType} of ${delivery.createdAt}`}
              >
                Redeliver
              </button>
            </PostForm>
          </td>
        </tr>
      ))}
    </Table>
  );
}
