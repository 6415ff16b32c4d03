import type { AccountDetail, DashboardFigures } from '../../services/operator.js';
import type { ConsoleDeps } from '../console-deps.js';

export interface OperatorView {
  /** Every account with its money, credits and live keys (each key's spend in its limit's period). */
  accounts: AccountDetail[];
  doctor: { ok: boolean; problems: string[] };
  /** Task and delivery counts, and the lanes (this process's on the file store, the fleet's on a shared database). */
  dashboard: Pick<DashboardFigures, 'counts' | 'webhooks' | 'failures' | 'throughputPerMinute' | 'lanes'>;
}

/**
 * What the operator view shows, from the operator service and the doctor. Every account is
 * read in detail: the view is for the operator of one self-hosted service (accounts in the
 * tens or hundreds), as `imgtask accounts show` is.
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
  return { accounts, doctor: { ok: doctor.ok, problems: doctor.problems }, dashboard };
}
