/** @jsxImportSource hono/jsx */
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { UsageReport } from '../../services/usage.js';
import { DoneNotice } from '../components/done-notice.js';
import { type Refusal, RefusalNotice } from '../components/refusal.js';
import { ShownOnce } from '../components/shown-once.js';
import { When } from '../components/when.js';
import type { ConsoleDeps } from '../console-deps.js';
import { EmptyState, Page } from '../layout.js';
import { CreateKeyForm, type KeyFormValues, NEW_KEY_FORM } from './key-form.js';
import { periodSpend, recentUsage } from './key-spend.js';
import { KeyTable, KeyUsageTable, keyLabel } from './key-table.js';

/** What the keys page shows of the account: its live keys, their spend this period, 30 days of usage per key. */
export interface KeysData {
  keys: ApiKeyView[];
  spend: Map<string, string>;
  usage: UsageReport;
}

export async function loadKeys(deps: ConsoleDeps, accountId: string): Promise<KeysData> {
  const keys = await deps.apiKeys.list(accountId);
  const [spend, usage] = await Promise.all([periodSpend(deps, accountId), recentUsage(deps, accountId)]);
  return { keys, spend, usage };
}

/** A raw key in the one answer that carries it: a new key, or the replacement of a rotated one. */
export type NewRawKey =
  | { kind: 'created'; raw: string; apiKey: ApiKeyView }
  | { kind: 'rotated'; raw: string; apiKey: ApiKeyView; previous: ApiKeyView };

interface KeysPageProps {
  session: ConsoleSession;
  data: KeysData;
  values?: KeyFormValues;
  refusal?: Refusal;
  done?: string;
  fresh?: NewRawKey;
}

const DONE = {
  deleted: 'The key was deleted: it stops working at once.',
  updated: 'The key was changed: the next request it makes is held to its new settings.',
  unchanged: 'Nothing was changed.',
} as const;

function FreshKey({ fresh }: { fresh: NewRawKey }) {
  const label = keyLabel(fresh.apiKey);
  return (
    <ShownOnce
      id="raw-key"
      label={fresh.kind === 'created' ? `Your new key ${label}` : `The new key of ${label}`}
      value={fresh.raw}
    >
      <p>
        Send it as <code>Authorization: Bearer …</code>. The console keeps only its preview,{' '}
        <code>{fresh.apiKey.keyPreview}</code>.
      </p>
      {fresh.kind === 'rotated' &&
        (fresh.previous.expiresAt ? (
          <p>
            The old key <code>{fresh.previous.keyPreview}</code> keeps working until{' '}
            <When at={fresh.previous.expiresAt} />.
          </p>
        ) : (
          <p>
            The old key <code>{fresh.previous.keyPreview}</code> no longer works.
          </p>
        ))}
    </ShownOnce>
  );
}

/** The keys page: a new raw key once, the live keys, usage per key and the create form (or the empty state with it). */
export function KeysPage({ session, data, values = NEW_KEY_FORM, refusal, done, fresh }: KeysPageProps) {
  const form = <CreateKeyForm session={session} values={values} />;
  return (
    <Page
      title="API keys"
      session={session}
      active="/console/keys"
      styles={['settings.css']}
      lead="Keys let programs call the API as this account, each with its own scopes, spending limit, request rate and expiry."
    >
      <DoneNotice done={done} messages={DONE} />
      {refusal && <RefusalNotice refusal={refusal} />}
      {fresh && <FreshKey fresh={fresh} />}
      {data.keys.length === 0 ? (
        <EmptyState title="No keys yet">
          <p>
            A key is what a program sends to the API (<code>Authorization: Bearer mak_…</code>) to create and read
            tasks. Create one below: you choose what it may do and how much it may spend, and it is shown to you once.
          </p>
        </EmptyState>
      ) : (
        <section aria-labelledby="live-keys-title">
          <h2 id="live-keys-title">Live keys</h2>
          <KeyTable session={session} keys={data.keys} spend={data.spend} />
        </section>
      )}
      <section class="panel" aria-labelledby="key-usage-title">
        <h2 id="key-usage-title">Usage per key, last 30 days</h2>
        <KeyUsageTable report={data.usage} keys={data.keys} />
      </section>
      <section class="panel">{form}</section>
    </Page>
  );
}
