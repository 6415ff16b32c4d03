import { callAdminSocket } from '../client/admin-client.js';
import { loadConfig } from '../config/load.js';
import { lockHolder } from '../store/file/lock.js';
import { type AdminArgs, type AdminOpName, type AdminResult, runAdminOp } from './admin/ops.js';
import { dataDirLayout } from './data-dir.js';
import { openServices } from './services.js';

/**
 * Runs an operator action on a data dir: through the running server's admin socket when
 * one holds the store, else by opening the store here (and closing it after).
 */
export async function runOnDataDir<Name extends AdminOpName>(dataDir: string, configFile: string | undefined, op: Name, args: AdminArgs<Name>): Promise<AdminResult<Name>> {
  const layout = dataDirLayout(dataDir);
  const holder = await lockHolder(`${layout.store}/LOCK`);
  if (holder !== null) {
    try {
      return await callAdminSocket<AdminResult<Name>>(layout.adminSocket, op, args);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ECONNREFUSED') {
        throw new Error(`process ${holder} holds ${dataDir} but its admin socket ${layout.adminSocket} does not answer`);
      }
      throw err;
    }
  }
  const services = await openServices({ dataDir, config: loadConfig({ file: configFile }) });
  try {
    return await runAdminOp(services, op, args);
  } finally {
    await services.close();
  }
}
