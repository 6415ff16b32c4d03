import { z } from 'zod';
import { checkLedger } from '../../services/doctor.js';
import { adminOp } from './op.js';

export const maintenanceOps = {
  dashboard: adminOp({ args: z.object({}), run: (s) => s.operator.dashboard() }),
  // The ledger, and the free space the service writes into (with the floor, and whether the store refuses writes).
  doctor: adminOp({ args: z.object({}), run: async (s) => ({ ...(await checkLedger(s.store)), storage: await s.space.report() }) }),
  sweep: adminOp({
    args: z.object({}),
    run: async (s) => {
      const expired = await s.tasks.sweep();
      return { expired: expired.length, taskIds: expired };
    },
  }),
};
