import type { AdminArgs, AdminOpName, AdminResult } from '../app/admin/ops.js';
import type { DataDirUse } from './data-dir-guard.js';
import { print } from './output.js';
import type { CommandContext } from './run.js';

/**
 * Runs an operator action on the data dir the command names (through a running server's socket, or on the store).
 * `use`: whether the action may start a data dir where there is none (see data-dir-guard.ts).
 * The store and services load here, when an action runs, not when the CLI starts.
 */
export async function admin<Name extends AdminOpName>(
  context: CommandContext,
  op: Name,
  args: AdminArgs<Name>,
  use: DataDirUse = 'existing',
): Promise<AdminResult<Name>> {
  const { onDataDir } = await import('./data-dir-guard.js');
  return onDataDir(context.data, use, async (): Promise<AdminResult<Name>> => {
    // Loaded once the data dir is known to be there (or may be made): a refusal answers at once.
    const { runOnDataDir } = await import('../app/data-dir-admin.js');
    return runOnDataDir(context.data, context.config, op, args);
  });
}

/** Runs an operator action and prints its answer: one JSON document with --json, else `text` of it. */
export async function adminPrint<Name extends AdminOpName>(
  context: CommandContext,
  op: Name,
  args: AdminArgs<Name>,
  text: (result: AdminResult<Name>) => string,
): Promise<void> {
  const result = await admin(context, op, args);
  print(context, result, () => text(result));
}
