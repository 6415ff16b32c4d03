import { AppError } from '../../domain/errors.js';
import type { Scope } from '../../domain/scopes.js';
import type { AccountView } from '../../services/accounts.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { ConsoleDeps } from '../console-deps.js';
import { principalOf } from '../console-http.js';
import { type DayOfTasks, type Failure, latestFailures, tasksOfLastDay } from './activity.js';
import { type KeyLimit, keyLimits, type PeriodSpend, spendByPeriod } from './spend.js';

export interface Overview {
  account: AccountView;
  /** Null when the session may not read usage (the manage scope, as GET /usage needs). */
  spend: PeriodSpend | null;
  /** Empty too when the session may not read keys (the keys scope, as GET /api-key needs). */
  limits: KeyLimit[];
  /** Null when the session may not read tasks (tasks:read). */
  tasks: { any: boolean; day: DayOfTasks; failures: Failure[] } | null;
}

/**
 * Whether the session's principal passes the guard a route with this scope has (a session from a pasted token may hold
 * fewer scopes).
 */
function holds(deps: ConsoleDeps, session: ConsoleSession & { accountId: string }, scope: Scope): boolean {
  try {
    deps.auth.authorize(principalOf(session), { accept: ['accessToken'], scope });
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === 'INSUFFICIENT_SCOPE') return false;
    throw err;
  }
}

/** Everything the overview shows, read through the services. */
export async function loadOverview(
  deps: ConsoleDeps,
  session: ConsoleSession & { accountId: string },
): Promise<Overview> {
  const { accountId } = session;
  const now = deps.clock.now();
  const readTasks = async () => {
    const day = await tasksOfLastDay(deps, accountId, now);
    const any = day.tasks.length > 0 || (await deps.tasks.list(accountId, { limit: 1 })).tasks.length > 0;
    return { any, day, failures: await latestFailures(deps, accountId, day) };
  };
  const [account, spend, limits, tasks] = await Promise.all([
    deps.accounts.find(accountId).then(deps.accounts.view),
    holds(deps, session, 'manage') ? spendByPeriod(deps, accountId, now) : null,
    holds(deps, session, 'keys') ? keyLimits(deps, accountId, now) : [],
    holds(deps, session, 'tasks:read') ? readTasks() : null,
  ]);
  return { account, spend, limits, tasks };
}
