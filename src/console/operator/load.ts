import type { AccountDetail, DashboardFigures } from '../../services/operator.js';
import type { ConsoleDeps } from '../deps.js';

export interface LaneDepth {
  lane: string;
  running: number;
  queued: number;
  concurrency: number;
}

export interface OperatorView {
  /** Every account with its money, credits and live keys (each key's spend in its limit's period). */
  accounts: AccountDetail[];
  doctor: { ok: boolean; problems: string[] };
  dashboard: Pick<DashboardFigures, 'counts' | 'webhooks' | 'failures' | 'throughputPerMinute'>;
  /** This process's lanes (another process of a shared database has its own). */
  lanes: LaneDepth[];
}

/**
 * What the operator view shows, from the operator service, the doctor and the lanes. Every
 * account is read in detail: the view is for the operator of one self-hosted service (accounts
 * in the tens or hundreds), as `imgtask accounts show` is.
 */
export async function loadOperatorView(deps: ConsoleDeps): Promise<OperatorView> {
  const [accounts, doctor, dashboard] = await Promise.all([
    deps.accounts.list().then((all) => Promise.all(all.map((account) => deps.operator.accountDetail(account.id)))),
    deps.doctor().catch((err: Error) => {
      // The view still shows the rest; the reason goes to the log, not the page.
      deps.log(`console operator view: the doctor failed: ${err.message}`);
      return { ok: false, problems: ['the doctor could not run: see the server log'] };
    }),
    deps.operator.dashboard(),
  ]);
  const lanes = Object.entries(deps.lanes.stats()).map(([lane, stats]) => ({ lane, running: stats.running, queued: stats.queued, concurrency: stats.concurrency }));
  return { accounts, doctor: { ok: doctor.ok, problems: doctor.problems }, dashboard, lanes: lanes.sort((a, b) => (a.lane < b.lane ? -1 : 1)) };
}
