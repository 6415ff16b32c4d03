import type { Command } from 'commander';
import { environment } from '../config/load.js';
import { runOnDataDir } from '../app/admin-client.js';
import type { AdminOpName } from '../app/admin-ops.js';

export interface GlobalOptions {
  data: string;
  config?: string;
  json?: boolean;
}

/** The global options as seen from a subcommand, with env fallbacks applied. */
export function globals(command: Command): GlobalOptions {
  const all = command.optsWithGlobals() as { data?: string; config?: string; json?: boolean };
  return { data: all.data ?? environment.dataDir() ?? './data', config: all.config ?? environment.configFile(), json: all.json };
}

/** Runs an operator action on the data dir named by the global options. */
export const admin = (command: Command, op: AdminOpName, args: unknown): Promise<unknown> => {
  const g = globals(command);
  return runOnDataDir(g.data, g.config, op, args);
};
