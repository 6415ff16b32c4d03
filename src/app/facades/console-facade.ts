import type { ApiDeps } from '../../api/api-deps.js';
import type { ConsoleDeps } from '../../console/console-deps.js';
import type { AdminDeps } from '../admin/admin-deps.js';
import { runAdminOp } from '../admin/ops.js';
import type { ServiceParts } from '../service-parts.js';

/** The console's facade: the API's, plus the operator view's services (its doctor status runs the admin op). */
export function consoleDepsOf(parts: ServiceParts, api: ApiDeps, admin: AdminDeps): ConsoleDeps {
  return {
    ...api,
    accounts: parts.accounts,
    consoleSessions: parts.consoleSessions,
    tokens: parts.tokens,
    clock: parts.clock,
    operator: parts.operator,
    // The operator view's doctor status: the checks of `imgtask doctor`, without the storage walk.
    doctor: () => runAdminOp(admin, 'doctor', { inventory: false }),
    accountErase: parts.accountErase,
    engine: parts.engine,
  };
}
