/** @jsxImportSource hono/jsx */
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { UsageReport } from '../../services/usage.js';
import { PostForm } from '../components/post-form.js';
import { num, Table } from '../components/table.js';
import { When } from '../components/when.js';

/** How long a rotated key keeps working, as the rotate form offers it (the API's default is 24 h). */
export const GRACE_CHOICES = [
  [0, 'stops now'],
  [3600, 'works 1 more hour'],
  [86_400, 'works 24 more hours'],
  [604_800, 'works 7 more days'],
] as const;
export const DEFAULT_GRACE = 86_400;

export const keyLabel = (key: Pick<ApiKeyView, 'id' | 'name'>): string => key.name ?? key.id;

function Limit({ keyView, spent }: { keyView: ApiKeyView; spent: string | undefined }) {
  const period = keyView.spendingLimitPeriod;
  return (
    <>
      {keyView.spendingLimit === undefined ? (
        <span class="muted">no limit</span>
      ) : (
        `$${keyView.spendingLimit} per ${period}`
      )}
      <br />
      <span class="muted">{`spent this ${period}: $${spent ?? '0'}${keyView.spendingLimit === undefined ? '' : ` of $${keyView.spendingLimit}`}`}</span>
    </>
  );
}

function KeyActions({ session, keyView }: { session: ConsoleSession; keyView: ApiKeyView }) {
  const label = keyLabel(keyView);
  return (
    <div class="actions">
      <a href={`/console/keys/${keyView.id}/edit`} class="button quiet" aria-label={`Edit ${label}`}>
        Edit
      </a>
      <PostForm
        session={session}
        action={`/console/keys/${keyView.id}/rotate`}
        confirm={`Rotate the key ${label}? A new raw key replaces it.`}
      >
        {/* "Old key" shows (the options say what becomes of it); the row's key is named for screen readers. */}
        <label for={`grace-${keyView.id}`} class="grace">
          Old key<span class="visually-hidden">{` of ${label}`}</span>
        </label>
        <select id={`grace-${keyView.id}`} name="graceSeconds">
          {GRACE_CHOICES.map(([seconds, text]) => (
            <option value={String(seconds)} selected={seconds === DEFAULT_GRACE}>
              {text}
            </option>
          ))}
        </select>{' '}
        <button type="submit" class="quiet" aria-label={`Rotate ${label}`}>
          Rotate
        </button>
      </PostForm>
      <PostForm
        session={session}
        action={`/console/keys/${keyView.id}/delete`}
        confirm={`Delete the key ${label}? It stops working at once.`}
      >
        <button type="submit" class="danger" aria-label={`Delete ${label}`}>
          Delete
        </button>
      </PostForm>
    </div>
  );
}

/**
 * The account's live keys with their limits, spend in the current period and actions. It fits
 * the console's 1200-pixel column with no sideways scroll: the key's name, preview and id share
 * one cell, and the rotate form wraps under its label.
 */
export function KeyTable({
  session,
  keys,
  spend,
}: {
  session: ConsoleSession;
  keys: readonly ApiKeyView[];
  spend: ReadonlyMap<string, string>;
}) {
  return (
    <Table
      class="keys"
      caption="Live API keys"
      columns={[
        'Key',
        'Scopes',
        'Spending limit',
        num('Requests / min'),
        num('Max concurrent'),
        num('Max priority'),
        'Expires',
        'Last used',
        'Actions',
      ]}
    >
      {keys.map((key) => (
        <tr id={`key-${key.id}`}>
          <th scope="row">
            {key.name ?? <span class="muted">unnamed</span>}
            <br />
            <code>{key.keyPreview}</code>
            {key.rotatedFrom && <span class="muted"> (rotated)</span>}
            <br />
            <span class="muted mono">{key.id}</span>
          </th>
          <td>
            <ul class="scopes">
              {key.scopes.map((scope) => (
                <li>{scope}</li>
              ))}
            </ul>
          </td>
          <td>
            <Limit keyView={key} spent={spend.get(key.id)} />
          </td>
          <td class="num">{key.requestsPerMinute ?? <span class="muted">no limit</span>}</td>
          <td class="num">{key.maxConcurrent ?? <span class="muted">no bound</span>}</td>
          <td class="num">{key.maxPriority}</td>
          <td>
            <When at={key.expiresAt} none="never" />
          </td>
          <td>
            <When at={key.lastUsedAt} none="never" />
          </td>
          <td>
            <KeyActions session={session} keyView={key} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** Cost and tasks per key over the report's range; keys deleted since are named by id. */
export function KeyUsageTable({ report, keys }: { report: UsageReport; keys: readonly ApiKeyView[] }) {
  const names = new Map(keys.map((key) => [key.id, keyLabel(key)]));
  if (report.groups.length === 0) return <p class="muted">No task has settled in the last 30 days.</p>;
  return (
    <Table
      class="key-usage"
      caption="Usage per key, last 30 days"
      columns={['Key', num('Tasks'), num('Items charged'), num('Cost (USD)')]}
      foot={
        <tr>
          <th scope="row">Total</th>
          <td class="num">{report.total.tasks}</td>
          <td class="num">{report.total.items}</td>
          <td class="num">{report.total.cost}</td>
        </tr>
      }
    >
      {report.groups.map((group) => (
        <tr>
          <th scope="row">
            {group.key === null ? 'no key (access token)' : (names.get(group.key) ?? `${group.key} (deleted)`)}
          </th>
          <td class="num">{group.tasks}</td>
          <td class="num">{group.items}</td>
          <td class="num">{group.cost}</td>
        </tr>
      ))}
    </Table>
  );
}
