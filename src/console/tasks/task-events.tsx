/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { TaskRecord } from '../../engine/task-registry.js';
import type { DeliveryView } from '../../services/webhooks/delivery-log.js';
import { num, Table } from '../components/table.js';
import { Json, StatusBadge, When } from './format.js';
import type { TaskDeliveries } from './inspector-data.js';

/** Every attempt of one delivery: when, the HTTP status, how long it took, and why it failed. */
function Attempts({ delivery, index }: { delivery: DeliveryView; index: number }) {
  if (delivery.attempts.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <Table
      class="attempts"
      caption={`Attempts of delivery ${index + 1}`}
      columns={[num('Attempt'), 'Time', num('HTTP status'), num('Latency'), 'Error']}
    >
      {delivery.attempts.map((attempt, n) => (
        <tr>
          <th scope="row" class="num">
            {String(n + 1)}
          </th>
          <td>
            <When at={attempt.at} />
          </td>
          <td class="num">{attempt.status === null ? <span class="muted">no answer</span> : String(attempt.status)}</td>
          <td class="num">{`${attempt.latencyMs} ms`}</td>
          <td>{attempt.error ?? ''}</td>
        </tr>
      ))}
    </Table>
  );
}

function Delivery({ delivery, index }: { delivery: DeliveryView; index: number }) {
  return (
    <article class="delivery">
      <h3>
        {`Delivery ${index + 1} to `}
        <code class="url">{delivery.url}</code>
      </h3>
      <p>
        <StatusBadge status={delivery.status} />{' '}
        {delivery.webhookId === null ? "the task's own endpoint (unsigned)" : `webhook ${delivery.webhookId}`}
        {delivery.nextAttemptAt && (
          <>
            {' · next attempt at '}
            <When at={delivery.nextAttemptAt} />
          </>
        )}
      </p>
      <Attempts delivery={delivery} index={index} />
    </article>
  );
}

/** Whether the task asked to be left out of the account's webhooks and live streams (`webhook.dashboard: false`). */
const optedOut = (task: TaskRecord): boolean =>
  (task.request as { webhook?: { dashboard?: boolean } } | null)?.webhook?.dashboard === false;

/** The event the task's settlement sent, and each webhook delivery with every attempt. */
export function TaskEvents({ task, sent }: { task: TaskRecord; sent: TaskDeliveries }) {
  let body: Child;
  if (task.status === 'pending')
    body = (
      <p class="muted">When it settles, its event (completed or failed) goes to the account's webhooks that want it.</p>
    );
  else if (!sent && !task.eventId) body = <p class="muted">Its event is being recorded: reload in a moment.</p>;
  else if (!sent)
    // Nothing was stored for delivery; live streams (webhooks listen) are never recorded, so say what they got rather
    // than "no event was sent".
    body = optedOut(task) ? (
      <p class="muted">
        This task was created with <code>webhook.dashboard: false</code> and no endpoint of its own: its event went to
        no webhook and no live listener, and nothing was stored for delivery.
      </p>
    ) : (
      <p class="muted">
        No webhook endpoint was to receive this task's event, so none was stored for delivery. Live listeners (
        <code>imgtask webhooks listen</code>, <code>GET /webhook/events</code>) connected when it settled got it; they
        are not recorded here. For delivery that is stored and retried, add a webhook on the{' '}
        <a href="/console/webhooks">Webhooks</a> page.
      </p>
    );
  else
    body = (
      <>
        <dl class="facts">
          <dt>Event</dt>
          <dd>
            <code>{sent.event.id}</code>
          </dd>
          <dt>Type</dt>
          <dd>{sent.event.type}</dd>
          <dt>Sent</dt>
          <dd>
            <When at={sent.event.createdAt} />
          </dd>
        </dl>
        <details>
          <summary>Payload</summary>
          <Json value={sent.event.payload} />
        </details>
        {sent.deliveries.map((delivery, index) => (
          <Delivery delivery={delivery} index={index} />
        ))}
      </>
    );
  return (
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Events and webhook deliveries</h2>
      {body}
    </section>
  );
}
