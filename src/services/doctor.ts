import { formatUsd } from '../domain/money.js';
import { PERIODS, periodKey } from '../domain/periods.js';
import type { LedgerView, Store } from '../store/store-contract.js';

/** The ledger's verdict (one section of `imgtask doctor`: docs/operations.md). */
export interface LedgerReport {
  ok: boolean;
  problems: string[];
  checked: { accounts: number; tasks: number; keys: number };
}

const usd = (micros: number) => `${formatUsd(micros)} USD`;

/**
 * Recomputes the ledger from the raw records and compares it with what the store keeps
 * (DESIGN "Money"): credits − charges = balance (charges of tasks whose records are gone counted
 * by the account's `removedCharges`); reserved = the estimates of pending tasks;
 * no available balance below zero; no key's period spend past its limit; every settled task
 * charged only its successful items, never more than it reserved.
 */
export function checkLedger(store: Store): Promise<LedgerReport> {
  // One moment's records: read statement by statement while tasks are created and settled, a
  // reserve is seen before or after the task that made it, and the check raises a false alarm.
  return store.snapshot ? store.snapshot(checkView) : checkView(store);
}

async function checkView(store: LedgerView): Promise<LedgerReport> {
  const problems: string[] = [];
  const charges = new Map<string, number>();
  const pendingEstimates = new Map<string, number>();
  const keySpend = new Map<string, number>();
  let taskCount = 0;

  for (const task of await store.tasks.all()) {
    taskCount += 1;
    const add = (map: Map<string, number>, key: string, amount: number) => map.set(key, (map.get(key) ?? 0) + amount);
    if (task.status === 'pending') add(pendingEstimates, task.accountId, task.estimate);
    else add(charges, task.accountId, task.cost);
    if (task.cost > task.estimate)
      problems.push(`task ${task.id}: charged ${usd(task.cost)}, more than its reserve ${usd(task.estimate)}`);
    if (task.status === 'failed' && task.cost !== 0)
      problems.push(`task ${task.id}: failed but charged ${usd(task.cost)}`);
    if (task.status === 'completed') {
      const successful = task.items.reduce((sum, item) => sum + (item.status === 'success' ? (item.cost ?? 0) : 0), 0);
      if (successful !== task.cost)
        problems.push(`task ${task.id}: charged ${usd(task.cost)} but its successful items cost ${usd(successful)}`);
    }
    if (task.apiKeyId) {
      const amount = task.status === 'pending' ? task.estimate : task.cost;
      for (const period of PERIODS)
        add(keySpend, `${task.apiKeyId}|${periodKey(period, Date.parse(task.createdAt))}`, amount);
    }
  }

  const accounts = await store.accounts.list();
  let keyCount = 0;
  for (const account of accounts) {
    const credited = (await store.accounts.credits(account.id)).reduce((sum, credit) => sum + credit.amount, 0);
    // Charges of tasks whose records retention removed stay on the account's books.
    const expected = credited - (charges.get(account.id) ?? 0) - (account.removedCharges ?? 0);
    if (expected !== account.balance)
      problems.push(
        `account ${account.name}: balance ${usd(account.balance)} but credits − charges = ${usd(expected)}`,
      );
    const reserved = await store.tasks.reserved(account.id);
    const held = pendingEstimates.get(account.id) ?? 0;
    if (reserved !== held)
      problems.push(`account ${account.name}: reserved ${usd(reserved)} but its pending tasks hold ${usd(held)}`);
    if (account.balance - reserved < 0)
      problems.push(`account ${account.name}: available balance is negative (${usd(account.balance - reserved)})`);

    for (const key of await store.apiKeys.listLive(account.id)) {
      keyCount += 1;
      for (const [spendKey, amount] of keySpend) {
        if (!spendKey.startsWith(`${key.id}|`)) continue;
        const [, period] = spendKey.split('|');
        if (
          key.spendingLimit !== undefined &&
          period.startsWith(key.spendingLimitPeriod[0]) &&
          amount > key.spendingLimit
        ) {
          problems.push(
            `key ${key.id}: spent ${usd(amount)} in ${period.slice(2)}, past its limit ${usd(key.spendingLimit)}`,
          );
        }
      }
    }
  }
  return {
    ok: problems.length === 0,
    problems,
    checked: { accounts: accounts.length, tasks: taskCount, keys: keyCount },
  };
}
