/** @jsxImportSource hono/jsx */
import { CreateWebhookBody } from '../../api/routes/webhooks/create.js';
import { UpdateWebhookBody } from '../../api/routes/webhooks/update.js';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { EVENT_KINDS } from '../../task-types/task-modules.js';
import { type Refusal, schemaRefusal } from '../components/refusal.js';
import { keyLabel } from '../keys/key-table.js';
import { Csrf } from '../layout.js';

/** What a webhook form holds, as typed (kept when the form is refused). */
export interface WebhookFormValues {
  url: string;
  /** None checked: every kind. */
  events: string[];
  /** None checked: tasks of every key. */
  apiKeyIds: string[];
  enabled: boolean;
}

export const NEW_WEBHOOK_FORM: WebhookFormValues = { url: '', events: [], apiKeyIds: [], enabled: true };

const LABELS: Record<string, string> = { url: 'URL', events: 'Events', apiKeyIds: 'Keys', enabled: 'Enabled' };

export function webhookFormValues(form: Record<string, string[]>): WebhookFormValues {
  return {
    url: (form.url?.at(-1) ?? '').trim(),
    events: form.events ?? [],
    apiKeyIds: form.apiKeyIds ?? [],
    enabled: form.enabled?.includes('on') ?? false,
  };
}

/** POST /webhook's body, checked by its schema: no event checked subscribes to every kind. */
export function createBody(values: WebhookFormValues): { body: CreateWebhookBody } | { refused: Refusal } {
  const parsed = CreateWebhookBody.safeParse({
    url: values.url,
    events: values.events.length > 0 ? values.events : undefined,
    apiKeyIds: values.apiKeyIds,
  });
  return parsed.success ? { body: parsed.data } : { refused: schemaRefusal(parsed.error, LABELS) };
}

/** PATCH /webhook/{id}'s body: the whole form, so an unchecked box is a change too. */
export function updateBody(values: WebhookFormValues): { body: UpdateWebhookBody } | { refused: Refusal } {
  const parsed = UpdateWebhookBody.safeParse({
    url: values.url,
    events: values.events.length > 0 ? values.events : null,
    apiKeyIds: values.apiKeyIds,
    enabled: values.enabled,
  });
  return parsed.success ? { body: parsed.data } : { refused: schemaRefusal(parsed.error, LABELS) };
}

function KeyChoices({ keys, values }: { keys: readonly ApiKeyView[]; values: WebhookFormValues }) {
  const live = new Set(keys.map((key) => key.id));
  // A key the webhook is tied to that has since been deleted stays listed, so it can be unchecked.
  const gone = values.apiKeyIds.filter((id) => !live.has(id));
  return (
    <fieldset>
      <legend>Keys</legend>
      <p class="muted">Only tasks created with these keys are sent. None checked: tasks of every key.</p>
      {keys.length + gone.length === 0 ? (
        <p class="muted">The account has no keys yet.</p>
      ) : (
        <div class="checks">
          {keys.map((key) => (
            <label for={`wh-key-${key.id}`}>
              <input
                type="checkbox"
                id={`wh-key-${key.id}`}
                name="apiKeyIds"
                value={key.id}
                checked={values.apiKeyIds.includes(key.id)}
              />{' '}
              {`${keyLabel(key)} (${key.keyPreview})`}
            </label>
          ))}
          {gone.map((id) => (
            <label for={`wh-key-${id}`}>
              <input type="checkbox" id={`wh-key-${id}`} name="apiKeyIds" value={id} checked />{' '}
              {`${id} (deleted: uncheck it)`}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/** The create form (action /console/webhooks) or the edit form of one webhook (with its Enabled box). */
export function WebhookForm({
  session,
  keys,
  values,
  editing,
}: {
  session: ConsoleSession;
  keys: readonly ApiKeyView[];
  values: WebhookFormValues;
  editing?: string;
}) {
  return (
    <form
      method="post"
      action={editing ? `/console/webhooks/${editing}` : '/console/webhooks'}
      class="stack"
      aria-labelledby="webhook-form-title"
    >
      <h2 id="webhook-form-title">{editing ? 'Edit' : 'Add a webhook'}</h2>
      <Csrf session={session} />
      <label for="wh-url">URL (http or https)</label>
      <input
        id="wh-url"
        name="url"
        type="url"
        required
        maxlength={2048}
        value={values.url}
        placeholder="https://example.com/hooks/imgtask"
      />
      <fieldset>
        <legend>Events</legend>
        <p class="muted">None checked, or «all»: every kind.</p>
        <div class="checks">
          {EVENT_KINDS.map((kind) => (
            <label for={`wh-event-${kind}`}>
              <input
                type="checkbox"
                id={`wh-event-${kind}`}
                name="events"
                value={kind}
                checked={values.events.includes(kind)}
              />{' '}
              {kind}
            </label>
          ))}
        </div>
      </fieldset>
      <KeyChoices keys={keys} values={values} />
      {editing && (
        <label for="wh-enabled">
          <input type="checkbox" id="wh-enabled" name="enabled" value="on" checked={values.enabled} /> Enabled
          (re-enabling clears the failures that disabled it)
        </label>
      )}
      <div class="actions">
        <button type="submit">{editing ? 'Save' : 'Add webhook'}</button>
      </div>
    </form>
  );
}
