/** @jsxImportSource hono/jsx */
import { UpdateApiKeyBody } from '../../api/routes/api-keys/update.js';
import { PRIORITY } from '../../domain/scheduling.js';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { type Refusal, RefusalNotice, schemaRefusal } from '../components/refusal.js';
import { When } from '../components/when.js';
import { Csrf, Page } from '../layout.js';
import { type KeySettingValues, LimitFields, numberField } from './key-form.js';
import { keyLabel } from './key-table.js';

/** What the edit form holds, as typed. Scopes are not here: a key with other scopes is a new key. */
export type EditKeyValues = KeySettingValues;

const LABELS: Record<string, string> = {
  name: 'Name',
  spendingLimit: 'Spending limit',
  spendingLimitPeriod: 'Period',
  requestsPerMinute: 'Requests per minute',
  expiresAt: 'Expires on',
  maxConcurrent: 'Max concurrent',
  maxPriority: 'Max priority',
};

/** The form as it opens: the key's settings now. */
export function editValuesOf(key: ApiKeyView): EditKeyValues {
  return {
    name: key.name ?? '',
    spendingLimit: key.spendingLimit ?? '',
    spendingLimitPeriod: key.spendingLimitPeriod,
    requestsPerMinute: key.requestsPerMinute === undefined ? '' : String(key.requestsPerMinute),
    expiresOn: key.expiresAt?.slice(0, 10) ?? '',
    maxConcurrent: key.maxConcurrent === null ? '' : String(key.maxConcurrent),
    // The default shows as an empty field, as the create form leaves it.
    maxPriority: key.maxPriority === PRIORITY.default ? '' : String(key.maxPriority),
  };
}

export function editValuesFrom(form: Record<string, string>): EditKeyValues {
  return {
    name: form.name ?? '',
    spendingLimit: form.spendingLimit ?? '',
    spendingLimitPeriod: form.spendingLimitPeriod ?? '',
    requestsPerMinute: form.requestsPerMinute ?? '',
    expiresOn: form.expiresOn ?? '',
    maxConcurrent: form.maxConcurrent ?? '',
    maxPriority: form.maxPriority ?? '',
  };
}

/**
 * The PATCH /api-key/{id} body of what the form changed, checked by that route's own schema: only
 * fields that differ from the key are sent (so an expiry to the minute, such as a rotation's grace,
 * is kept unless its day is changed), and an emptied field removes the setting (null).
 */
export function editBody(values: EditKeyValues, key: ApiKeyView): { body: UpdateApiKeyBody } | { refused: Refusal } {
  const now = editValuesOf(key);
  const changed = (field: keyof EditKeyValues) => values[field].trim() !== now[field];
  const text = (value: string) => value.trim() || null;
  const parsed = UpdateApiKeyBody.safeParse({
    name: changed('name') ? text(values.name) : undefined,
    spendingLimit: changed('spendingLimit') ? text(values.spendingLimit) : undefined,
    spendingLimitPeriod: changed('spendingLimitPeriod') ? values.spendingLimitPeriod.trim() : undefined,
    requestsPerMinute: changed('requestsPerMinute') ? numberField(values.requestsPerMinute, null) : undefined,
    expiresAt: changed('expiresOn')
      ? text(values.expiresOn) === null
        ? null
        : `${values.expiresOn.trim()}T00:00:00Z`
      : undefined,
    maxConcurrent: changed('maxConcurrent') ? numberField(values.maxConcurrent, null) : undefined,
    maxPriority: changed('maxPriority') ? numberField(values.maxPriority, null) : undefined,
  });
  return parsed.success ? { body: parsed.data } : { refused: schemaRefusal(parsed.error, LABELS) };
}

/** A key's settings, to change: name, spending limit and period, request rate, expiry, scheduling limits. */
export function EditKeyPage({
  session,
  keyView,
  values,
  refusal,
}: {
  session: ConsoleSession;
  keyView: ApiKeyView;
  values: EditKeyValues;
  refusal?: Refusal;
}) {
  const label = keyLabel(keyView);
  return (
    <Page
      title={`Edit key ${label}`}
      session={session}
      active="/console/keys"
      styles={['settings.css']}
      lead="Change what limits this key. Its scopes stay as they are: a key with other scopes is a new key."
    >
      {refusal && <RefusalNotice refusal={refusal} />}
      <form
        method="post"
        action={`/console/keys/${keyView.id}`}
        class="stack panel"
        aria-label={`Settings of ${label}`}
      >
        <Csrf session={session} />
        <p class="muted">
          <code>{keyView.keyPreview}</code> · {keyView.scopes.join(', ')}
          {keyView.expiresAt && (
            <>
              {' '}
              · expires <When at={keyView.expiresAt} />
            </>
          )}
        </p>
        <label for="edit-name">Name (empty: none)</label>
        <input id="edit-name" name="name" maxlength={64} value={values.name} autocomplete="off" />
        <LimitFields idPrefix="edit" values={values} />
        <div class="actions">
          <button type="submit">Save changes</button> <a href="/console/keys">Back to the keys</a>
        </div>
      </form>
    </Page>
  );
}
