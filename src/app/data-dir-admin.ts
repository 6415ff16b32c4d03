import { callAdminSocket } from '../client/admin-socket-client.js';
import { lockHolder } from '../store/file/lock.js';
import type { AdminArgs, AdminOpName, AdminResult } from './admin/ops.js';
import { dataDirLayout } from './data-dir.js';

/**
 * Runs an operator action on a data dir: through the running server's admin socket when
 * one holds the store, else by opening the store here (and closing it after). The config, the
 * actions and the services load only for the second: a command sent to a running server (what
 * its first start tells a user to type) starts in a fraction of the time.
 */
export async function runOnDataDir<Name extends AdminOpName>(
  dataDir: string,
  configFile: string | undefined,
  op: Name,
  args: AdminArgs<Name>,
): Promise<AdminResult<Name>> {
  const layout = dataDirLayout(dataDir);
  const holder = await lockHolder(`${layout.store}/LOCK`);
  if (holder !== null) {
    try {
      return await callAdminSocket<AdminResult<Name>>(layout.adminSocket, op, args);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ECONNREFUSED') {
        throw new Error(
          `process ${holder} holds ${dataDir} but its admin socket ${layout.adminSocket} does not answer`,
        );
      }
      throw err;
    }
  }
  const [{ loadConfig }, { runAdminOp }, { openServices }] = await Promise.all([
    import('../config/load.js'),
    import('./admin/ops.js'),
    import('./services.js'),
  ]);
  // Doctor reports a workflow file that does not load as one problem among its checks, not as a refusal to run them.
  const services = await openServices({
    dataDir,
    config: loadConfig({ file: configFile, keepBrokenWorkflows: op === 'doctor' }),
  });
  try {
    return await runAdminOp(services.admin, op, args);
  } finally {
    await services.lifecycle.close();
  }
}
