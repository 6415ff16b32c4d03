import { AppError } from '../domain/errors.js';
import { randomId, sortableId } from '../domain/ids.js';
import { formatUsd, type Micros } from '../domain/money.js';
import { ACCOUNT_WEIGHT } from '../domain/scheduling.js';
import { isoTime } from '../domain/time.js';
import type { AccountRecord } from '../store/records.js';
import type { Store } from '../store/types.js';
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
  createdAt: string;
  updatedAt: string;
}

export function toAccountView(account: AccountRecord, reserved: Micros = 0): AccountView {
  return {
    id: account.id,
    name: account.name,
    balance: formatUsd(account.balance),
    reserved: formatUsd(reserved),
    available: formatUsd(account.balance - reserved),
    weight: account.weight ?? ACCOUNT_WEIGHT.default,
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
  };
}

export function createAccountService(store: Store, clock: Clock) {
  /** Finds an account by id (`acc_…`) or by name. */
  async function find(ref: string): Promise<AccountRecord> {
    const account = ref.startsWith('acc_') ? await store.accounts.get(ref) : await store.accounts.getByName(ref);
    if (!account) throw new AppError('VALIDATION_ERROR', `no account "${ref}"`);
    return account;
  }

  async function credit(ref: string, amount: Micros, note?: string): Promise<AccountRecord> {
    const account = await find(ref);
    if (amount <= 0) throw new AppError('VALIDATION_ERROR', 'a credit must be greater than 0');
    return store.accounts.credit({ id: randomId('crd'), accountId: account.id, amount, note, createdAt: isoTime(clock.now()) });
  }

  /** Sets an account's scheduling weight (imgtask accounts set --weight). */
  async function setWeight(ref: string, weight: number): Promise<AccountRecord> {
    const account = await find(ref);
    if (!Number.isInteger(weight) || weight < ACCOUNT_WEIGHT.min || weight > ACCOUNT_WEIGHT.max) {
      throw new AppError('VALIDATION_ERROR', `a weight is a whole number from ${ACCOUNT_WEIGHT.min} to ${ACCOUNT_WEIGHT.max}`);
    }
    const updated = await store.accounts.update(account.id, { weight }, isoTime(clock.now()));
    if (!updated) throw new AppError('VALIDATION_ERROR', `no account "${ref}"`);
    return updated;
  }

  /** An account with its reserve, as operators see it. */
  const view = async (account: AccountRecord): Promise<AccountView> => toAccountView(account, await store.tasks.reserved(account.id));

  return {
    find,
    credit,
    setWeight,
    view,
    async views(): Promise<AccountView[]> {
      return Promise.all((await store.accounts.list()).map(view));
    },
    async create(name: string, initialCredit: Micros = 0): Promise<AccountRecord> {
      if (!ACCOUNT_NAME.test(name) || name.startsWith('acc_')) {
        throw new AppError('VALIDATION_ERROR', 'an account name is 1 to 64 letters, digits, ".", "_" or "-", and does not start with "acc_"');
      }
      const now = isoTime(clock.now());
      const account = await store.accounts.create({ id: sortableId('acc', clock.now()), name, balance: 0, createdAt: now, updatedAt: now });
      return initialCredit > 0 ? credit(account.id, initialCredit, 'initial credit') : account;
    },
    list: () => store.accounts.list(),
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
