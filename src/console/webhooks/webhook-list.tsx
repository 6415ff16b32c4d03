/** @jsxImportSource hono/jsx */
import type { ApiKeyView } from '../../services/api-keys.js';
import type { WebhookService } from '../../services/webhooks/webhook-service.js';
import { Table } from '../components/table.js';
import { When } from '../components/when.js';
import { keyLabel } from '../keys/key-table.js';

/** A webhook as the console shows it: the resource, the keys it is tied to, and its health. */
export type WebhookDetail = Awaited<ReturnType<WebhookService['operatorView']>>;

export function Health({ webhook }: { webhook: WebhookDetail }) {
  return (
    <>
      <span class={`badge ${webhook.enabled ? 'enabled' : 'disabled'}`}>
        {webhook.enabled ? 'Enabled' : 'Disabled'}
      </span>
      {webhook.disabledReason && <p class="health-problem">{`Disabled: ${webhook.disabledReason}`}</p>}
      {webhook.failingSince && (
        <p class="health-problem">
          Failing since <When at={webhook.failingSince} />
        </p>
      )}
    </>
  );
}

export function EventList({ events }: { events: readonly string[] | null }) {
  if (events === null || events.includes('all')) return <span>every kind</span>;
  return (
    <ul class="scopes">
      {events.map((kind) => (
        <li>{kind}</li>
      ))}
    </ul>
  );
}

export function KeyList({ ids, keys }: { ids: readonly string[]; keys: readonly ApiKeyView[] }) {
  if (ids.length === 0) return <span>every key</span>;
  const byId = new Map(keys.map((key) => [key.id, key]));
  return (
    <ul class="plain">
      {ids.map((id) => {
        const key = byId.get(id);
        return <li>{key ? keyLabel(key) : `${id} (deleted)`}</li>;
      })}
    </ul>
  );
}

/** The account's webhooks, each linking to its page (edit, test, delivery log). */
export function WebhookTable({ webhooks, keys }: { webhooks: readonly WebhookDetail[]; keys: readonly ApiKeyView[] }) {
  return (
    <Table
      class="webhooks"
      caption="Webhooks"
      columns={[{ label: 'URL', class: 'url' }, 'Events', 'Keys', 'Status', 'Created']}
    >
      {webhooks.map((webhook) => (
        <tr id={`webhook-${webhook.id}`}>
          <th scope="row" class="url">
            <a href={`/console/webhooks/${webhook.id}`}>{webhook.url}</a>
          </th>
          <td>
            <EventList events={webhook.events} />
          </td>
          <td>
            <KeyList ids={webhook.apiKeyIds} keys={keys} />
          </td>
          <td>
            <Health webhook={webhook} />
          </td>
          <td>
            <When at={webhook.createdAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
