import { z } from 'zod';
import { doctorVerdict } from '../../services/doctor-verdict.js';
import { checkProvenance, provenanceReport } from '../../services/provenance-check.js';
import { checkEngines } from './engines.js';
import { adminOp } from './op.js';

export const maintenanceOps = {
  dashboard: adminOp({ args: z.object({}), run: (s) => s.operator.dashboard() }),
  // The ledger, the free space the service writes into (with the floor, and whether the store refuses writes)
  // and the image engines the config names (ComfyUI servers and workflow files), under one verdict; beside
  // it the blob storage's inventory (`inventory: false` skips its walk: the console's view), `fix` removing old
  // orphans.
  doctor: adminOp({
    args: z.object({ fix: z.boolean().optional(), inventory: z.boolean().optional() }),
    run: async (s, { fix, inventory }) => {
      const taken =
        inventory === false
          ? 'skipped'
          : await s.storageInventory.take({ fix }).catch((err: Error) => ({ failure: err.message }));
      const engines = await checkEngines(s.config.current(), (name) => s.secrets.get(name));
      return doctorVerdict(
        await s.checkLedger(),
        await s.space.report(),
        engines,
        taken,
        checkProvenance(s.outputSigner.status(), s.clock.now()),
      );
    },
  }),
  // The signing certificate in use and the signer's state (imgtask provenance show).
  provenance: adminOp({
    args: z.object({}),
    run: async (s) => provenanceReport(s.outputSigner.status(), s.clock.now()),
  }),
  // What the sweep timer runs, now: expiry, erasures a crash left unfinished, then retention (with what each removed).
  sweep: adminOp({
    args: z.object({}),
    run: async (s) => {
      const expired = await s.tasks.sweep();
      const erased = await s.accountErase.resumeAll();
      const retention = await s.retention.sweep();
      return { expired: expired.length, taskIds: expired, erased: erased.map((report) => report.id), retention };
    },
  }),
};
