/** @jsxImportSource hono/jsx */
import { ACCOUNT_RETENTION_KINDS } from '../../domain/retention.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { AccountDetail } from '../../services/operator.js';
import { num, Table } from '../components/table.js';
import { PERIOD_WORDS, usdText } from '../usage/format.js';
import { EraseForm } from './erase-form.js';

/** An account's retention of outputs, uploads and tasks, each marked where the account set its own. */
function RetentionCell({ account }: { account: AccountDetail }) {
  if (account.erasedAt) return <span class="muted">–</span>;
  return (
    <>
      {ACCOUNT_RETENTION_KINDS.map((kind, i) => (
        <>
          {i > 0 && ', '}
          {`${kind} ${account.retention[kind]}`}
          {account.retentionOverrides[kind] !== undefined && <span class="muted"> (own)</span>}
        </>
      ))}
    </>
  );
}

/**
 * Every account's money (balance, what pending tasks hold, what is left, every credit summed), its scheduling weight,
 * retention and erase.
 */
export function Accounts({ accounts, session }: { accounts: AccountDetail[]; session: ConsoleSession }) {
  return (
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      <Table
        columns={[
          'Account',
          num('Balance (USD)'),
          num('Reserved (USD)'),
          num('Available (USD)'),
          num('Credited, all time (USD)'),
          num('Live keys'),
          num('Weight'),
          'Kept (retention)',
          'Erase',
        ]}
      >
        {accounts.map((account) => (
          <tr>
            <th scope="row">
              {account.name} <span class="muted mono">{account.id}</span>
            </th>
            <td class="num">{usdText(account.balance)}</td>
            <td class="num">{usdText(account.reserved)}</td>
            <td class="num">{usdText(account.available)}</td>
            <td class="num">{usdText(account.credited)}</td>
            <td class="num">{String(account.keys.length)}</td>
            <td class="num">{String(account.weight)}</td>
            <td>
              <RetentionCell account={account} />
            </td>
            <td>
              <EraseForm account={account} session={session} />
            </td>
          </tr>
        ))}
      </Table>
      <p class="muted">
        Add credit with <code>imgtask accounts credit NAME USD</code>; change a weight (an account's share of a lane
        while others have work queued) with <code>imgtask accounts set NAME --weight N</code>; an account's own
        retention with <code>imgtask accounts set NAME --retain-outputs 7d</code> (<code>default</code> follows the
        config's <code>retention.*</code>).
      </p>
    </section>
  );
}

type KeyRow = AccountDetail['keys'][number] & { account: string };

function limitText(key: KeyRow): string {
  if (key.spendingLimit === undefined) return 'none';
  return `${usdText(key.periodSpend)} of ${usdText(key.spendingLimit)} USD ${PERIOD_WORDS[key.spendingLimitPeriod]}`;
}

/** Every live key of every account. */
export function Keys({ accounts }: { accounts: AccountDetail[] }) {
  const keys: KeyRow[] = accounts.flatMap((account) => account.keys.map((key) => ({ ...key, account: account.name })));
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {keys.length === 0 ? (
        <p class="muted">
          No account has a live key. Create one with <code>imgtask keys create --account NAME</code>, or from the
          account's console.
        </p>
      ) : (
        <Table columns={['Name', 'Preview', 'Account', 'Scopes', 'Spending limit', 'Last used (UTC)']}>
          {keys.map((key) => (
            <tr>
              <th scope="row">{key.name ?? <span class="muted">(no name)</span>}</th>
              <td class="mono">{key.keyPreview}</td>
              <td>{key.account}</td>
              <td>{key.scopes.join(', ')}</td>
              <td>{limitText(key)}</td>
              <td>{key.lastUsedAt ? key.lastUsedAt.replace('T', ' ').slice(0, 19) : 'never'}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
