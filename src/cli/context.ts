import type { Command } from 'commander';
import { environment } from '../config/load.js';
import { runOnDataDir } from '../app/admin-client.js';
import type { AdminOpName } from '../app/admin-ops.js';
import { fail } from './output.js';

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

/**
 * Wraps a command's action: resolves the global options and turns any failure into the
 * exit-code contract (one line, exit 2 for bad arguments, 1 otherwise).
 */
export const action =
  <T extends unknown[]>(run: (g: GlobalOptions, ...args: T) => Promise<void>) =>
  async (...args: T): Promise<void> => {
    const g = globals(args[args.length - 1] as Command);
    try {
      await run(g, ...args);
    } catch (err) {
      fail(err, g);
    }
  };
