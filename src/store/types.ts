import type { AccountRecord, ApiKeyRecord, CreditRecord } from './records.js';

/**
 * The store as services see it. Each write method is atomic: its checks and its change
 * happen together, and its promise resolves only once the change is durable. A
 * Postgres-backed store implements the same interface with transactions.
 */
export interface Store {
  readonly accounts: AccountRepo;
  readonly apiKeys: ApiKeyRepo;
  /** Flushes, writes a snapshot if the journal holds anything, and releases the lock. */
  close(): Promise<void>;
}

export interface AccountRepo {
  /** Fails with VALIDATION_ERROR when the name is taken. */
  create(account: AccountRecord): Promise<AccountRecord>;
  credit(credit: CreditRecord): Promise<AccountRecord>;
  get(id: string): Promise<AccountRecord | undefined>;
  getByName(name: string): Promise<AccountRecord | undefined>;
  list(): Promise<AccountRecord[]>;
  /** Every credit of the account, oldest first. */
  credits(accountId: string): Promise<CreditRecord[]>;
}

export interface ApiKeyRepo {
  /** Fails with API_KEY_LIMIT_REACHED when the account already holds `maxLive` live keys. */
  create(key: ApiKeyRecord, limits: { maxLive: number }): Promise<ApiKeyRecord>;
  /** Marks a key revoked; returns the updated key, or undefined when it is unknown or already revoked. */
  revoke(id: string, at: string): Promise<ApiKeyRecord | undefined>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** The live key with this hash, if any. */
  getLiveByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listLive(accountId: string): Promise<ApiKeyRecord[]>;
}
