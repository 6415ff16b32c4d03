import { AppError } from '../domain/errors.js';
import { randomId, sortableId } from '../domain/ids.js';
import { formatUsd, type Micros } from '../domain/money.js';
import {
  ACCOUNT_RETENTION_KINDS,
  type AccountRetentionKind,
  effectiveRetention,
  RETENTION_DEFAULTS,
  type RetentionSetting,
  retentionProblem,
} from '../domain/retention.js';
import { ACCOUNT_WEIGHT } from '../domain/scheduling.js';
import { isoTime } from '../domain/time.js';
import type { AccountRecord, RetentionOverrides } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { Clock } from './ports.js';

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface AccountView {
  id: string;
  name: string;
  balance: string;
  reserved: string;
  available: string;
  /** Its share of a lane against other accounts with queued work. */
  weight: number;
  /** What it keeps, and for how long (its own setting where it has one, else the config's): a duration or `off`. */
  retention: Record<AccountRetentionKind, RetentionSetting>;
  /** The kinds it set for itself (imgtask accounts set --retain-*); the others follow the config. */
  retentionOverrides: RetentionOverrides;
  /** When it was erased (imgtask accounts erase): its name is then its id. */
  erasedAt?: string;
  /** An erase under way since then (finished by the next sweep or start if interrupted). */
  erasingSince?: string;
  createdAt: string;
  updatedAt: string;
}

/** The config's retention of the kinds an account may set (the defaults without a config). */
export type RetentionDefaults = Readonly<Record<AccountRetentionKind, RetentionSetting>>;

/** A change to an account's retention: per kind, a duration, `off` (kept forever) or `default` (follow the config). */
export type RetentionChanges = Partial<Record<AccountRetentionKind, string>>;

export function toAccountView(
  account: AccountRecord,
  reserved: Micros = 0,
  retentionDefaults: RetentionDefaults = RETENTION_DEFAULTS,
): AccountView {
  const view: AccountView = {
    id: account.id,
    name: account.name,
    balance: formatUsd(account.balance),
    reserved: formatUsd(reserved),
    available: formatUsd(account.balance - reserved),
    weight: account.weight ?? ACCOUNT_WEIGHT.default,
    retention: effectiveRetention(account.retention, retentionDefaults),
    retentionOverrides: { ...account.retention },
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
  };
  if (account.erasedAt) view.erasedAt = account.erasedAt;
  if (account.erasingSince) view.erasingSince = account.erasingSince;
  return view;
}

/** The overrides after `changes` (`default` drops a kind); throws VALIDATION_ERROR naming the first bad setting. */
function changedRetention(current: RetentionOverrides | undefined, changes: RetentionChanges): RetentionOverrides {
  const next: RetentionOverrides = { ...current };
  for (const kind of ACCOUNT_RETENTION_KINDS) {
    const setting = changes[kind];
    if (setting === undefined) continue;
    if (setting === 'default') {
      delete next[kind];
      continue;
    }
    const problem = retentionProblem(kind, setting);
    if (problem)
      throw new AppError('VALIDATION_ERROR', `retention of ${kind}: ${problem} (or "default" to follow the config)`);
    next[kind] = setting;
  }
  return next;
}

/** Accounts: create, credit, look up, settings (weight, retention) and their views. */
export interface AccountService {
  /** Finds an account by id (`acc_…`) or by name to act on: an erased one (or one being erased) takes nothing new. */
  find(ref: string): Promise<AccountRecord>;
  /** Finds an account by id (`acc_…`) or by name, erased ones included (operators still see them). */
  lookup(ref: string): Promise<AccountRecord>;
  /** Adds credit to an account that takes new work; the amount must be positive. */
  credit(ref: string, amount: Micros, note?: string): Promise<AccountRecord>;
  /** Sets an account's scheduling weight (imgtask accounts set --weight). */
  setWeight(ref: string, weight: number): Promise<AccountRecord>;
  /** Changes an account's retention (imgtask accounts set --retain-*): the kinds named, the others kept. */
  setRetention(ref: string, changes: RetentionChanges): Promise<AccountRecord>;
  /** An account with its reserve, as operators see it. */
  view(account: AccountRecord): Promise<AccountView>;
  /** Every account, as operators see it. */
  views(): Promise<AccountView[]>;
  /** Creates an account under a new name, with an optional first credit. */
  create(name: string, initialCredit?: Micros): Promise<AccountRecord>;
  /** Every account record. */
  list(): Promise<AccountRecord[]>;
}

export function createAccountService(
  store: Store,
  clock: Clock,
  retentionDefaults: () => RetentionDefaults = () => RETENTION_DEFAULTS,
): AccountService {
  /** Finds an account by id (`acc_…`) or by name, erased ones included (operators still see them). */
  async function lookup(ref: string): Promise<AccountRecord> {
    const account = ref.startsWith('acc_') ? await store.accounts.get(ref) : await store.accounts.getByName(ref);
    if (!account) throw new AppError('VALIDATION_ERROR', `no account "${ref}"`);
    return account;
  }

  /** Finds an account by id (`acc_…`) or by name to act on: an erased one (or one being erased) takes nothing new. */
  async function find(ref: string): Promise<AccountRecord> {
    const account = await lookup(ref);
    if (account.erasedAt || account.erasingSince)
      throw new AppError(
        'VALIDATION_ERROR',
        `account ${account.id} is ${account.erasedAt ? 'erased' : 'being erased'}: it takes nothing new`,
      );
    return account;
  }

  async function credit(ref: string, amount: Micros, note?: string): Promise<AccountRecord> {
    const account = await find(ref);
    if (amount <= 0) throw new AppError('VALIDATION_ERROR', 'a credit must be greater than 0');
    return store.accounts.credit({
      id: randomId('crd'),
      accountId: account.id,
      amount,
      note,
      createdAt: isoTime(clock.now()),
    });
  }

  /** Sets an account's scheduling weight (imgtask accounts set --weight). */
  async function setWeight(ref: string, weight: number): Promise<AccountRecord> {
    const account = await find(ref);
    if (!Number.isInteger(weight) || weight < ACCOUNT_WEIGHT.min || weight > ACCOUNT_WEIGHT.max) {
      throw new AppError(
        'VALIDATION_ERROR',
        `a weight is a whole number from ${ACCOUNT_WEIGHT.min} to ${ACCOUNT_WEIGHT.max}`,
      );
    }
    const updated = await store.accounts.update(account.id, { weight }, isoTime(clock.now()));
    if (!updated) throw new AppError('VALIDATION_ERROR', `no account "${ref}"`);
    return updated;
  }

  /** Changes an account's retention (imgtask accounts set --retain-*): the kinds named, the others kept. */
  async function setRetention(ref: string, changes: RetentionChanges): Promise<AccountRecord> {
    const account = await find(ref);
    const retention = changedRetention(account.retention, changes);
    const updated = await store.accounts.update(account.id, { retention }, isoTime(clock.now()));
    if (!updated) throw new AppError('VALIDATION_ERROR', `no account "${ref}"`);
    return updated;
  }

  /** An account with its reserve, as operators see it. */
  const view = async (account: AccountRecord): Promise<AccountView> =>
    toAccountView(account, await store.tasks.reserved(account.id), retentionDefaults());

  return {
    find,
    lookup,
    credit,
    setWeight,
    setRetention,
    view,
    async views(): Promise<AccountView[]> {
      return Promise.all((await store.accounts.list()).map(view));
    },
    async create(name: string, initialCredit: Micros = 0): Promise<AccountRecord> {
      if (!ACCOUNT_NAME.test(name) || name.startsWith('acc_')) {
        throw new AppError(
          'VALIDATION_ERROR',
          'an account name is 1 to 64 letters, digits, ".", "_" or "-", and does not start with "acc_"',
        );
      }
      const now = isoTime(clock.now());
      const account = await store.accounts.create({
        id: sortableId('acc', clock.now()),
        name,
        balance: 0,
        createdAt: now,
        updatedAt: now,
      });
      return initialCredit > 0 ? credit(account.id, initialCredit, 'initial credit') : account;
    },
    list: () => store.accounts.list(),
  };
}
