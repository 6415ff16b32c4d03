import type { AdminArgs, AdminOpName, AdminResult } from '../app/admin/ops.js';
import type { CommandContext } from './run.js';

/**
 * Runs an operator action on the data dir the command names (through a running server's socket, or on the store).
 * The store and services load here, when an action runs, not when the CLI starts.
 */
export async function admin<Name extends AdminOpName>(context: CommandContext, op: Name, args: AdminArgs<Name>): Promise<AdminResult<Name>> {
  const { runOnDataDir } = await import('../app/admin-client.js');
  return runOnDataDir(context.data, context.config, op, args);
}
