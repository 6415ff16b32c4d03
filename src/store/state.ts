import { Collection, GroupIndex, UniqueIndex } from './collection.js';
import type { AccountRecord, ApiKeyRecord, CreditRecord } from './records.js';

/** All state, in memory, with its indexes. Changed only by `applyOp`. */
export class State {
  readonly accountByName = new UniqueIndex<AccountRecord>((account) => account.name);
  readonly accounts = new Collection<AccountRecord>('accounts', [this.accountByName]);

  readonly creditsByAccount = new GroupIndex<CreditRecord>((credit) => credit.accountId);
  readonly credits = new Collection<CreditRecord>('credits', [this.creditsByAccount]);

  readonly liveKeyByHash = new UniqueIndex<ApiKeyRecord>((key) => (key.revokedAt ? undefined : key.hash));
  readonly liveKeysByAccount = new GroupIndex<ApiKeyRecord>((key) => (key.revokedAt ? undefined : key.accountId));
  readonly apiKeys = new Collection<ApiKeyRecord>('apiKeys', [this.liveKeyByHash, this.liveKeysByAccount]);

  /** Every collection, by the name it has in snapshots. */
  collections(): Collection<{ id: string }>[] {
    return [this.accounts, this.credits, this.apiKeys] as unknown as Collection<{ id: string }>[];
  }
}

type Handler = (state: State, payload: never) => void;

/**
 * How each journaled op changes the state. Handlers must be deterministic and must not
 * throw for an op that passed its repo's checks: replay runs the very same code.
 */
const HANDLERS: Record<string, Handler> = {
  'account.create': (state, account: AccountRecord) => state.accounts.put(account),
  'account.credit': (state, credit: CreditRecord) => {
    const account = state.accounts.get(credit.accountId)!;
    state.credits.put(credit);
    state.accounts.put({ ...account, balance: account.balance + credit.amount, updatedAt: credit.createdAt });
  },
  'apiKey.create': (state, key: ApiKeyRecord) => state.apiKeys.put(key),
  'apiKey.revoke': (state, { id, at }: { id: string; at: string }) => {
    const key = state.apiKeys.get(id)!;
    state.apiKeys.put({ ...key, revokedAt: at });
  },
};

export class UnknownOpError extends Error {}

export function applyOp(state: State, op: string, payload: unknown): void {
  const handler = HANDLERS[op];
  if (!handler) throw new UnknownOpError(`unknown op "${op}"`);
  handler(state, payload as never);
}
