import { AppError } from '../../../domain/errors.js';
import type { TaskRecord } from '../../records/tasks.js';
import { memberMayCause, withBatchRetries } from '../batch-errors.js';
import type { Db } from '../db.js';
import { groupCommit, type Outcome } from '../group-commit.js';
import { stored } from '../sql.js';
import {
  type CreateRequest,
  createStatements,
  limitPeriodOf,
  type Verdict,
  type VerdictRow,
} from './task-create-statement.js';

/** The most creates in one batch. */
const MAX_BATCH = 256;

/** What the batch read: each account's verdict and available balance, each limited key's spend in its period. */
interface Reading {
  accounts: Map<string, { verdict: Verdict; available: number }>;
  spent: Map<string, number>;
}

function readingOf(rows: VerdictRow[]): Reading {
  const reading: Reading = { accounts: new Map(), spent: new Map() };
  for (const row of rows) {
    if (row.kind === 'account') reading.accounts.set(row.id, { verdict: row.verdict!, available: row.amount ?? 0 });
    else reading.spent.set(`${row.id} ${row.period}`, row.amount ?? 0);
  }
  return reading;
}

/** The refusal a verdict stands for, worded for `request`. */
function refusal(verdict: Exclude<Verdict, 'ok'>, request: CreateRequest, available: number): AppError {
  if (verdict === 'gone') return new AppError('UNAUTHORIZED', 'the account no longer exists, or is being erased');
  if (verdict === 'balance') {
    return new AppError(
      'INSUFFICIENT_BALANCE',
      `the estimate is ${request.task.estimate / 1e6} USD and the available balance is ${available / 1e6} USD`,
    );
  }
  return new AppError(
    'SPENDING_LIMIT_EXCEEDED',
    `this key's spending limit for the current ${request.spendingLimit!.period} is used up`,
  );
}

/**
 * How `request` would fare alone against what the batch read: refused (the same refusal in any
 * order, since other creates only take more), or undefined when it might pass.
 */
function aloneVerdict(request: CreateRequest, reading: Reading): Exclude<Verdict, 'ok'> | undefined {
  const account = reading.accounts.get(request.task.accountId)!;
  if (account.verdict === 'gone') return 'gone';
  if (account.available < request.task.estimate) return 'balance';
  const period = limitPeriodOf(request);
  if (
    period !== null &&
    (reading.spent.get(`${request.task.apiKeyId} ${period}`) ?? 0) + request.task.estimate >
      request.spendingLimit!.limit
  )
    return 'limit';
  return undefined;
}

/**
 * Creates through group commit: the creates that arrive while a batch is in flight go together
 * in the next one, one transaction sent in one round trip (see CREATE), the account rows locked
 * only for as long as the server takes to run it. Money stays exact: an account whose batch sum
 * does not fit is written nothing, and its creates are answered as one at a time would be: each
 * refused at once when it would be refused alone whatever the order, the others run one by one.
 */
export function createTaskCreator(db: Db): (request: CreateRequest) => Promise<TaskRecord> {
  const run = (members: CreateRequest[]) => async (): Promise<Reading> =>
    readingOf((await db.batch(createStatements(members)))[1].rows as VerdictRow[]);

  /** Each member alone, in order. */
  async function oneByOne(members: readonly CreateRequest[]): Promise<Outcome<TaskRecord>[]> {
    const outcomes: Outcome<TaskRecord>[] = [];
    for (const member of members) outcomes.push(await single(member));
    return outcomes;
  }

  /** One create alone: its verdict is its answer. */
  async function single(request: CreateRequest): Promise<Outcome<TaskRecord>> {
    try {
      const reading = await withBatchRetries(run([request]));
      const account = reading.accounts.get(request.task.accountId)!;
      if (account.verdict === 'ok') return { ok: true, value: stored(request.task) };
      return { ok: false, error: refusal(account.verdict, request, account.available) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  const batcher = groupCommit<CreateRequest, TaskRecord>({
    maxBatch: MAX_BATCH,
    async run(members) {
      if (members.length === 1) return [await single(members[0])];
      let reading: Reading;
      try {
        reading = await withBatchRetries(run(members));
      } catch (err) {
        if (!memberMayCause(err)) throw err;
        return oneByOne(members);
      }
      const outcomes: Outcome<TaskRecord>[] = [];
      for (const member of members) {
        const account = reading.accounts.get(member.task.accountId)!;
        if (account.verdict === 'ok') {
          outcomes.push({ ok: true, value: stored(member.task) });
          continue;
        }
        const alone = aloneVerdict(member, reading);
        // Its account's sum did not fit: refused now if it could not pass alone, else tried alone, in arrival order.
        outcomes.push(alone ? { ok: false, error: refusal(alone, member, account.available) } : await single(member));
      }
      return outcomes;
    },
  });
  return (request) => batcher.submit(request);
}
