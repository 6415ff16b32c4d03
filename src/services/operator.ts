import type { DashboardFigures, DashboardProgress, LaneFigures, QueueView } from '../domain/dashboard.js';
import { formatUsd } from '../domain/money.js';
import { periodKey } from '../domain/periods.js';
import type { TaskRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { AccountService, AccountView } from './accounts.js';
import { type ApiKeyView, toApiKeyView } from './api-keys.js';
import type { Clock } from './ports.js';

export type { DashboardFigures, LaneFigures } from '../domain/dashboard.js';

/** How many of the newest tasks the dashboard's figures are computed from. */
const RECENT = 200;

export interface AccountDetail extends AccountView {
  /** Every credit added to the account, summed (USD). */
  credited: string;
  /** Live keys, each with its spend (charged + reserved) in its limit's current UTC period. */
  keys: (ApiKeyView & { periodSpend: string; period: string })[];
}

/** What the operator sees: the dashboard, the lanes, an account's detail. */
export interface OperatorService {
  /** The engine's lanes with their top accounts named (an account gone from the store keeps its id as its name). */
  lanes(): Promise<LaneFigures[]>;
  /** One account in detail (its live keys with their spend in the period), as the operator view shows it. */
  accountDetail(ref: string): Promise<AccountDetail>;
  /** The operator dashboard's figures. */
  dashboard(): Promise<DashboardFigures>;
}

/** What operators see across accounts: the dashboard's figures and an account in detail. */
export function createOperatorService(deps: {
  store: Store;
  accounts: AccountService;
  clock: Clock;
  publicBase: () => string;
  /** A pending task's progress (the engine's, held in memory); none: the dashboard shows none. */
  progressOf?: (task: TaskRecord) => DashboardProgress | undefined;
  /** The engine's lanes (none: no lane is shown). */
  queues?: () => Promise<QueueView[]>;
}): OperatorService {
  const { store, clock } = deps;

  /** The engine's lanes with their top accounts named (an account gone from the store keeps its id as its name). */
  async function lanes(): Promise<LaneFigures[]> {
    const reports = (await deps.queues?.()) ?? [];
    const ids = new Set(reports.flatMap((report) => report.topAccounts.map((top) => top.account)));
    const names = new Map<string, string>();
    for (const id of ids) names.set(id, (await store.accounts.get(id))?.name ?? id);
    return reports.map((report) => ({
      ...report,
      topAccounts: report.topAccounts.map((top) => ({
        account: top.account,
        name: names.get(top.account) ?? top.account,
        queued: top.queued,
      })),
    }));
  }

  return {
    lanes,
    async accountDetail(ref: string): Promise<AccountDetail> {
      const account = await deps.accounts.lookup(ref);
      const now = clock.now();
      const keys = await Promise.all(
        (await store.apiKeys.listLive(account.id)).map(async (key) => ({
          ...toApiKeyView(key),
          periodSpend: formatUsd(await store.tasks.keySpend(key.id, key.spendingLimitPeriod, now)),
          period: periodKey(key.spendingLimitPeriod, now).slice(2),
        })),
      );
      const credited = (await store.accounts.credits(account.id)).reduce((sum, credit) => sum + credit.amount, 0);
      return { ...(await deps.accounts.view(account)), credited: formatUsd(credited), keys };
    },

    async dashboard(): Promise<DashboardFigures> {
      const now = clock.now();
      const recent = await store.tasks.recent(RECENT);
      const accounts = await store.accounts.list();
      const names = new Map(accounts.map((a) => [a.id, a.name]));
      const failures = new Map<string, number>();
      for (const task of recent) {
        const codes =
          task.status === 'failed'
            ? (task.errors ?? []).map((e) => e.code)
            : task.items.flatMap((i) => (i.status === 'failed' && i.error ? [i.error.code] : []));
        for (const code of codes) failures.set(code, (failures.get(code) ?? 0) + 1);
      }
      return {
        url: deps.publicBase(),
        generatedAt: new Date(now).toISOString(),
        counts: await store.tasks.countsByStatus(),
        throughputPerMinute: recent.filter((t) => t.status !== 'pending' && now - Date.parse(t.updatedAt) <= 60_000)
          .length,
        failures: [...failures].sort((a, b) => b[1] - a[1]).map(([code, count]) => ({ code, count })),
        accounts: await Promise.all(
          accounts.map(async (account) => {
            const { name, balance, reserved, available } = await deps.accounts.view(account);
            return { name, balance, reserved, available };
          }),
        ),
        webhooks: {
          ...(await store.webhooks.deliveryCounts()),
          disabled: (await store.webhooks.listAll())
            .filter((w) => !w.enabled && w.disabledReason)
            .map((w) => ({ id: w.id, url: w.url, reason: w.disabledReason! })),
        },
        lanes: await lanes(),
        tasks: recent.slice(0, 50).map((t) => ({
          id: t.id,
          type: t.type,
          status: t.status,
          account: names.get(t.accountId) ?? t.accountId,
          cost: formatUsd(t.cost),
          createdAt: t.createdAt,
          updatedAt: t.updatedAt,
          errorCode: t.errors?.[0]?.code ?? t.items.find((i) => i.status === 'failed')?.error?.code,
          ...(t.status === 'pending' && deps.progressOf ? { progress: deps.progressOf(t) } : {}),
        })),
      };
    },
  };
}
