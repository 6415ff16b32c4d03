import { AppError } from '../../../domain/errors.js';
import type { AccountRecord, CreditRecord } from '../../records/accounts.js';
import type { AccountRepo } from '../../repos/accounts.js';
import type { JournalEngine } from '../journal/journal-engine.js';

export function createAccountRepo(engine: JournalEngine): AccountRepo {
  const { state } = engine;
  return {
    async create(account) {
      if (state.accountByName.get(account.name))
        throw new AppError('VALIDATION_ERROR', `account name "${account.name}" is taken`);
      await engine.commit('account.create', account);
      return state.accounts.get(account.id)!;
    },
    async credit(credit: CreditRecord) {
      if (!state.accounts.get(credit.accountId))
        throw new AppError('VALIDATION_ERROR', `no account ${credit.accountId}`);
      await engine.commit('account.credit', credit);
      return state.accounts.get(credit.accountId)!;
    },
    async update(id, changes, at) {
      if (!state.accounts.get(id)) return undefined;
      const holder = changes.name === undefined ? undefined : state.accountByName.get(changes.name);
      if (holder !== undefined && holder !== id)
        throw new AppError('VALIDATION_ERROR', `account name "${changes.name}" is taken`);
      await engine.commit('account.update', { id, changes, at });
      return state.accounts.get(id)!;
    },
    async get(id) {
      return state.accounts.get(id);
    },
    async getByName(name) {
      const id = state.accountByName.get(name);
      return id === undefined ? undefined : state.accounts.get(id);
    },
    async list(): Promise<AccountRecord[]> {
      return state.accounts.capture();
    },
    async credits(accountId) {
      return Array.from(state.creditsByAccount.ids(accountId), (id) => state.credits.get(id)!);
    },
  };
}
