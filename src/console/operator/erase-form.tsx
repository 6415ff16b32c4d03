/** @jsxImportSource hono/jsx */
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { AccountDetail } from '../../services/operator.js';
import { Csrf } from '../layout.js';

/** Where the operator view's erase form posts, under /console. */
export const ERASE_ACTION = '/operator/accounts/erase';

/**
 * Erase an account, folded away: the form asks for the account's name typed again (checked by
 * the server, so it holds without scripts), as `imgtask accounts erase` does on a terminal.
 */
export function EraseForm({ account, session }: { account: AccountDetail; session: ConsoleSession }) {
  if (account.erasedAt) return <span class="muted">erased {account.erasedAt.slice(0, 19).replace('T', ' ')} UTC</span>;
  const field = `erase-${account.id}`;
  return (
    <details>
      <summary>
        Erase…<span class="visually-hidden">{` account ${account.name}`}</span>
      </summary>
      <form method="post" action={`/console${ERASE_ACTION}`}>
        <Csrf session={session} />
        <input type="hidden" name="account" value={account.id} />
        <p>
          Erasing revokes its keys and removes its webhooks, destinations, sessions, uploads and every task's outputs
          and text, for good. The ledger keeps amounts and ids.
        </p>
        <label for={field}>
          Type its name, <strong>{account.name}</strong>, to erase it
        </label>
        <input id={field} name="confirm" type="text" autocomplete="off" required />
        <button type="submit" class="danger">
          Erase {account.name}
        </button>
      </form>
    </details>
  );
}
