/** @jsxImportSource hono/jsx */
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { DeliveryView } from '../../services/webhooks/delivery-log.js';
import { DoneNotice } from '../components/done-notice.js';
import { PostForm } from '../components/post-form.js';
import { type Refusal, RefusalNotice } from '../components/refusal.js';
import { ShownOnce } from '../components/shown-once.js';
import { When } from '../components/when.js';
import type { ConsoleDeps } from '../console-deps.js';
import { EmptyState, Page } from '../layout.js';
import { DeliveryLog } from './delivery-log.js';
import { NEW_WEBHOOK_FORM, WebhookForm, type WebhookFormValues } from './webhook-form.js';
import { EventList, Health, KeyList, type WebhookDetail, WebhookTable } from './webhook-list.js';

/** Every webhook of the account with its keys and health, and the account's live keys (to tie webhooks to). */
export async function loadWebhooks(
  deps: ConsoleDeps,
  accountId: string,
): Promise<{ webhooks: WebhookDetail[]; keys: ApiKeyView[] }> {
  const [webhooks, keys] = await Promise.all([deps.webhooks.listDetails(accountId), deps.apiKeys.list(accountId)]);
  return { webhooks, keys };
}

/** One webhook of the account (WEBHOOK_NOT_FOUND for another's), its delivery log and the account's keys. */
export async function loadWebhook(
  deps: ConsoleDeps,
  accountId: string,
  id: string,
): Promise<{ webhook: WebhookDetail; deliveries: DeliveryView[]; keys: ApiKeyView[] }> {
  const webhook = await deps.webhooks.operatorView(accountId, id);
  const [deliveries, keys] = await Promise.all([deps.webhooks.deliveries(accountId, id), deps.apiKeys.list(accountId)]);
  return { webhook, deliveries, keys };
}

const SECRET_NOTE =
  'Each delivery is signed with it (Standard Webhooks: the webhook-signature header); check the signature before trusting a delivery.';

/** The webhooks page: a new webhook's secret once, the list, and the add form (or the empty state with it). */
export function WebhooksPage(props: {
  session: ConsoleSession;
  webhooks: readonly WebhookDetail[];
  keys: readonly ApiKeyView[];
  values?: WebhookFormValues;
  refusal?: Refusal;
  done?: string;
  created?: WebhookDetail;
}) {
  const { session, webhooks, keys, created } = props;
  return (
    <Page
      title="Webhooks"
      session={session}
      active="/console/webhooks"
      styles={['settings.css']}
      lead="Webhooks receive an event when a task settles, signed with the webhook's secret."
    >
      <DoneNotice
        done={props.done}
        messages={{ deleted: 'The webhook was deleted; its pending deliveries are dropped.' }}
      />
      {props.refusal && <RefusalNotice refusal={props.refusal} />}
      {created && (
        <ShownOnce id="webhook-secret" label="The signing secret of your new webhook" value={created.secret}>
          <p>{SECRET_NOTE}</p>
          <p>
            <a href={`/console/webhooks/${created.id}`}>Open the webhook</a> to send a test event and follow its
            deliveries.
          </p>
        </ShownOnce>
      )}
      {webhooks.length === 0 ? (
        <EmptyState title="No webhooks yet">
          <p>
            Add the URL of an endpoint below to be told when tasks complete or fail, instead of polling. Then send it a
            test event from its page.
          </p>
        </EmptyState>
      ) : (
        <section aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">Your webhooks</h2>
          <WebhookTable webhooks={webhooks} keys={keys} />
        </section>
      )}
      <section class="panel">
        <WebhookForm session={session} keys={keys} values={props.values ?? NEW_WEBHOOK_FORM} />
      </section>
    </Page>
  );
}

const DONE = {
  saved: 'Saved.',
  tested: 'A webhook.test event is on its way: its delivery is listed below (reload to follow it).',
  redelivered: 'The delivery is sent again, with the same event id.',
} as const;

function WebhookActions({ session, webhook }: { session: ConsoleSession; webhook: WebhookDetail }) {
  const base = `/console/webhooks/${webhook.id}`;
  return (
    <div class="actions">
      <PostForm session={session} action={`${base}/test`}>
        <button type="submit">Send a test event</button>
      </PostForm>
      <PostForm
        session={session}
        action={`${base}/rotate-secret`}
        confirm="Replace the signing secret? Deliveries are signed with the new one at once."
      >
        <button type="submit" class="quiet">
          Rotate the secret
        </button>
      </PostForm>
      <PostForm
        session={session}
        action={`${base}/delete`}
        confirm="Delete this webhook? Its pending deliveries are dropped."
      >
        <button type="submit" class="danger">
          Delete
        </button>
      </PostForm>
    </div>
  );
}

/** One webhook: its settings and health, the edit form, test / rotate / delete, and the delivery log. */
export function WebhookPage(props: {
  session: ConsoleSession;
  webhook: WebhookDetail;
  deliveries: readonly DeliveryView[];
  keys: readonly ApiKeyView[];
  values?: WebhookFormValues;
  refusal?: Refusal;
  done?: string;
  /** The new secret, in the answer to a rotation only. */
  rotated?: string;
}) {
  const { session, webhook, keys } = props;
  const values = props.values ?? {
    url: webhook.url,
    events: webhook.events ?? [],
    apiKeyIds: webhook.apiKeyIds,
    enabled: webhook.enabled,
  };
  return (
    <Page title="Webhook" session={session} active="/console/webhooks" styles={['settings.css']} lead={webhook.url}>
      <p>
        <a href="/console/webhooks">All webhooks</a>
      </p>
      <DoneNotice done={props.done} messages={DONE} />
      {props.refusal && <RefusalNotice refusal={props.refusal} />}
      {props.rotated && (
        <ShownOnce id="webhook-secret" label="The new signing secret" value={props.rotated}>
          <p>{SECRET_NOTE} The old secret no longer signs deliveries.</p>
        </ShownOnce>
      )}
      <section class="panel" aria-labelledby="webhook-summary-title">
        <h2 id="webhook-summary-title">Status</h2>
        <Health webhook={webhook} />
        <dl>
          <dt>Events</dt>
          <dd>
            <EventList events={webhook.events} />
          </dd>
          <dt>Keys</dt>
          <dd>
            <KeyList ids={webhook.apiKeyIds} keys={keys} />
          </dd>
          <dt>Created</dt>
          <dd>
            <When at={webhook.createdAt} />
          </dd>
          <dt>Updated</dt>
          <dd>
            <When at={webhook.updatedAt} />
          </dd>
        </dl>
        <WebhookActions session={session} webhook={webhook} />
      </section>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Delivery log</h2>
        <DeliveryLog session={session} webhookId={webhook.id} deliveries={props.deliveries} />
      </section>
      <section class="panel">
        <WebhookForm session={session} keys={keys} values={values} editing={webhook.id} />
      </section>
    </Page>
  );
}
