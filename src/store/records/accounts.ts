import type { Micros } from '../../domain/money.js';

export type SpendingLimitPeriod = 'day' | 'week' | 'month';

export interface AccountRecord {
  id: string;
  name: string;
  /** Credits minus charges, in micro-USD. */
  balance: Micros;
  /** Its share of a lane against other accounts with queued work (1..100); absent: 1 (docs/scheduling.md). */
  weight?: number;
  /** Its own retention, in place of the config's (imgtask accounts set --retain-*): absent kinds follow the config. */
  retention?: RetentionOverrides;
  /**
   * Charges of its tasks whose records retention removed (TaskRepo.purge): the ledger still adds them (credits −
   * charges = balance).
   */
  removedCharges?: Micros;
  /** An erase under way (imgtask accounts erase): set first, so a crash in the middle is finished at the next start. */
  erasingSince?: string;
  /** When the account was erased: its name is then its id, and it holds nothing but amounts and ids. */
  erasedAt?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Per-account retention (docs/data-lifecycle.md): a duration in the config's form (`7d`, `12h`), or `off` (kept
 * forever).
 */
export interface RetentionOverrides {
  outputs?: string;
  uploads?: string;
  tasks?: string;
}

/** A change to an account's settings (imgtask accounts set, and erase): an absent field is kept. */
export interface AccountChanges {
  weight?: number;
  /** Replaces the account's overrides as a whole (an empty object: follow the config in everything). */
  retention?: RetentionOverrides;
  name?: string;
  /** null clears it. */
  erasingSince?: string | null;
  erasedAt?: string;
}

/**
 * An account with `changes` made (both stores apply them so): absent fields are kept, `null`
 * clears, and an empty `retention` leaves no overrides at all (the field goes).
 */
export function applyAccountChanges(account: AccountRecord, changes: AccountChanges, at: string): AccountRecord {
  const next: Record<string, unknown> = { ...account };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  if (changes.retention) {
    const kept = Object.entries(changes.retention).filter(([, value]) => value !== undefined);
    if (kept.length === 0) delete next.retention;
    else next.retention = Object.fromEntries(kept);
  }
  next.updatedAt = at;
  return next as unknown as AccountRecord;
}

/** One credit to an account's balance; the ledger the balance is checked against. */
export interface CreditRecord {
  id: string;
  accountId: string;
  amount: Micros;
  note?: string;
  createdAt: string;
}
