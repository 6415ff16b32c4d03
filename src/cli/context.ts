import type { AdminArgs, AdminOpName, AdminResult } from '../app/admin/ops.js';
import { runOnDataDir } from '../app/admin-client.js';
import type { CommandContext } from './run.js';

/** Runs an operator action on the data dir the command names (through a running server's socket, or on the store). */
export const admin = <Name extends AdminOpName>(context: CommandContext, op: Name, args: AdminArgs<Name>): Promise<AdminResult<Name>> => runOnDataDir(context.data, context.config, op, args);
