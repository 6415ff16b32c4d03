import type { AccountChanges, AccountRecord, CreditRecord } from '../records/accounts.js';

export interface AccountRepo {
  /** Fails with VALIDATION_ERROR when the name is taken. */
  create(account: AccountRecord): Promise<AccountRecord>;
  credit(credit: CreditRecord): Promise<AccountRecord>;
  /** Changes an account's settings (its weight); undefined when there is no such account. */
  update(id: string, changes: AccountChanges, at: string): Promise<AccountRecord | undefined>;
  get(id: string): Promise<AccountRecord | undefined>;
  getByName(name: string): Promise<AccountRecord | undefined>;
  list(): Promise<AccountRecord[]>;
  /** Every credit of the account, oldest first. */
  credits(accountId: string): Promise<CreditRecord[]>;
}
