/** @jsxImportSource hono/jsx */
import { CreateApiKeyBody } from '../../api/routes/api-keys/create.js';
import { MAX_CONCURRENT_BOUND, PRIORITY } from '../../domain/scheduling.js';
import { API_KEY_SCOPES, isOptInScope } from '../../domain/scopes.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { type Refusal, schemaRefusal } from '../components/refusal.js';
import { Csrf } from '../layout.js';

/** A key's settings as typed on its create or edit form (kept when the form is refused). */
export interface KeySettingValues {
  name: string;
  spendingLimit: string;
  spendingLimitPeriod: string;
  requestsPerMinute: string;
  /** A date (YYYY-MM-DD): the key is refused from the start of that day, UTC. */
  expiresOn: string;
  maxConcurrent: string;
  maxPriority: string;
}

/** What the create form holds: the settings and the scopes. */
export interface KeyFormValues extends KeySettingValues {
  scopes: string[];
}

export const NEW_KEY_FORM: KeyFormValues = {
  name: '',
  // The opt-in scopes (workflow:raw) start unticked: a key gets them only when asked for.
  scopes: API_KEY_SCOPES.filter((scope) => !isOptInScope(scope)),
  spendingLimit: '',
  spendingLimitPeriod: 'month',
  requestsPerMinute: '',
  expiresOn: '',
  maxConcurrent: '',
  maxPriority: '',
};

/** The labels of the form's fields, by the body field a schema issue names. */
const LABELS: Record<string, string> = {
  name: 'Name',
  scopes: 'Scopes',
  spendingLimit: 'Spending limit',
  spendingLimitPeriod: 'Period',
  requestsPerMinute: 'Requests per minute',
  expiresAt: 'Expires on',
  maxConcurrent: 'Max concurrent',
  maxPriority: 'Max priority',
};

/** The periods a spending limit counts in, with their labels. */
const LIMIT_PERIODS = [
  ['day', 'per day'],
  ['week', 'per week (from Monday)'],
  ['month', 'per month'],
] as const;

export function keyFormValues(form: Record<string, string[]>): KeyFormValues {
  const one = (name: string) => form[name]?.at(-1) ?? '';
  return {
    name: one('name'),
    scopes: form.scopes ?? [],
    spendingLimit: one('spendingLimit'),
    spendingLimitPeriod: one('spendingLimitPeriod'),
    requestsPerMinute: one('requestsPerMinute'),
    expiresOn: one('expiresOn'),
    maxConcurrent: one('maxConcurrent'),
    maxPriority: one('maxPriority'),
  };
}

/** A whole number typed in a form field, for a route's schema to check; empty: `empty`. */
export const numberField = <Empty,>(value: string, empty: Empty): number | Empty =>
  value.trim() === '' ? empty : Number(value.trim());

/** The body POST /api-key would take, checked by its own schema; empty fields are left out. */
export function keyBody(values: KeyFormValues): { body: CreateApiKeyBody } | { refused: Refusal } {
  const text = (value: string) => value.trim() || undefined;
  const parsed = CreateApiKeyBody.safeParse({
    name: text(values.name),
    scopes: values.scopes,
    spendingLimit: text(values.spendingLimit),
    spendingLimitPeriod: text(values.spendingLimitPeriod),
    requestsPerMinute: numberField(values.requestsPerMinute, undefined),
    expiresAt: text(values.expiresOn) === undefined ? undefined : `${values.expiresOn.trim()}T00:00:00Z`,
    maxConcurrent: numberField(values.maxConcurrent, undefined),
    maxPriority: numberField(values.maxPriority, undefined),
  });
  return parsed.success ? { body: parsed.data } : { refused: schemaRefusal(parsed.error, LABELS) };
}

/** What limits a key, as both the create and the edit form ask for it; an emptied field means none. */
export function LimitFields({
  idPrefix,
  values,
}: {
  idPrefix: string;
  values: Pick<
    KeyFormValues,
    'spendingLimit' | 'spendingLimitPeriod' | 'requestsPerMinute' | 'expiresOn' | 'maxConcurrent' | 'maxPriority'
  >;
}) {
  return (
    <>
      <label for={`${idPrefix}-limit`}>Spending limit (USD, empty: none)</label>
      <input
        id={`${idPrefix}-limit`}
        name="spendingLimit"
        inputmode="decimal"
        value={values.spendingLimit}
        placeholder="25"
      />
      <label for={`${idPrefix}-period`}>Period of the limit (UTC)</label>
      <select id={`${idPrefix}-period`} name="spendingLimitPeriod">
        {LIMIT_PERIODS.map(([value, label]) => (
          <option value={value} selected={values.spendingLimitPeriod === value}>
            {label}
          </option>
        ))}
      </select>
      <label for={`${idPrefix}-rpm`}>Requests per minute (empty: no limit)</label>
      <input
        id={`${idPrefix}-rpm`}
        name="requestsPerMinute"
        type="number"
        min={1}
        max={1_000_000}
        step={1}
        value={values.requestsPerMinute}
      />
      <label for={`${idPrefix}-expires`}>Expires on (empty: never; from 00:00 UTC that day)</label>
      <input id={`${idPrefix}-expires`} name="expiresOn" type="date" value={values.expiresOn} />
      <label for={`${idPrefix}-max-concurrent`}>
        Max concurrent: items of its tasks running at once (empty: no bound)
      </label>
      <input
        id={`${idPrefix}-max-concurrent`}
        name="maxConcurrent"
        type="number"
        min={1}
        max={MAX_CONCURRENT_BOUND}
        step={1}
        value={values.maxConcurrent}
      />
      <label
        for={`${idPrefix}-max-priority`}
      >{`Max priority: the highest its tasks may ask for, ${PRIORITY.min} to ${PRIORITY.max} (empty: ${PRIORITY.default})`}</label>
      <input
        id={`${idPrefix}-max-priority`}
        name="maxPriority"
        type="number"
        min={PRIORITY.min}
        max={PRIORITY.max}
        step={1}
        value={values.maxPriority}
      />
    </>
  );
}

export function CreateKeyForm({ session, values }: { session: ConsoleSession; values: KeyFormValues }) {
  return (
    <form method="post" action="/console/keys" class="stack" aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <Csrf session={session} />
      <label for="key-name">Name</label>
      <input id="key-name" name="name" maxlength={64} value={values.name} autocomplete="off" />
      <fieldset>
        <legend>Scopes</legend>
        <p class="muted">What the key may do. A key holds only scopes your session holds.</p>
        <div class="checks">
          {API_KEY_SCOPES.map((scope) => (
            <label for={`scope-${scope}`}>
              <input
                type="checkbox"
                id={`scope-${scope}`}
                name="scopes"
                value={scope}
                checked={values.scopes.includes(scope)}
              />{' '}
              {scope}
            </label>
          ))}
        </div>
      </fieldset>
      <LimitFields idPrefix="key" values={values} />
      <div class="actions">
        <button type="submit">Create key</button>
      </div>
    </form>
  );
}
