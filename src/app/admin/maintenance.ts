import { z } from 'zod';
import { checkLedger } from '../../services/doctor.js';
import { adminOp } from './op.js';

export const maintenanceOps = {
  dashboard: adminOp({ args: z.object({}), run: (s) => s.operator.dashboard() }),
  doctor: adminOp({ args: z.object({}), run: (s) => checkLedger(s.store) }),
  sweep: adminOp({
    args: z.object({}),
    run: async (s) => {
      const expired = await s.tasks.sweep();
      return { expired: expired.length, taskIds: expired };
    },
  }),
};
