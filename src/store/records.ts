import type { Micros } from '../domain/money.js';

export type SpendingLimitPeriod = 'day' | 'week' | 'month';

export interface AccountRecord {
  id: string;
  name: string;
  /** Credits minus charges, in micro-USD. */
  balance: Micros;
  createdAt: string;
  updatedAt: string;
}

/** One credit to an account's balance; the ledger the balance is checked against. */
export interface CreditRecord {
  id: string;
  accountId: string;
  amount: Micros;
  note?: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** SHA-256 of the raw key, hex. The raw key itself is never stored. */
  hash: string;
  preview: string;
  name?: string;
  scopes: string[];
  spendingLimit?: Micros;
  spendingLimitPeriod: SpendingLimitPeriod;
  createdAt: string;
  /** Set when the key is deleted; a revoked key is kept for the ledger but never accepted. */
  revokedAt?: string;
}
