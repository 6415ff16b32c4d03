import { resolve } from 'node:path';
import { shellWord } from './invocation.js';

/**
 * What a command typed in another terminal in `cwd` needs to reach the same store: `--data DIR`
 * unless it is the default ./data there, and `--config FILE` when one was given (on PostgreSQL
 * the database is in it).
 */
export function storeFlags(data: string, config: string | undefined, cwd: string): string {
  const dataFlag = resolve(cwd, data) === resolve(cwd, 'data') ? '' : ` --data ${shellWord(data)}`;
  return `${dataFlag}${config ? ` --config ${shellWord(config)}` : ''}`;
}

/**
 * The first steps `serve` prints when it made a new data dir: each a command that works as
 * printed in another terminal in `cwd` (`cli` from howToRun), in order in one shell (the key is
 * exported for the commands after it, as in the README), with a comment aligned after it.
 */
export function firstSteps(cli: string, store: { data: string; config?: string }, cwd: string): string[] {
  const prefix = `${cli}${storeFlags(store.data, store.config, cwd)}`;
  const steps: [string, string][] = [
    [`${prefix} accounts create demo --credit 10`, 'an account with 10 USD'],
    [
      `export IMGTASK_API_KEY=$(${prefix} keys create --account demo)`,
      'an API key (mak_…), kept for the client commands',
    ],
    [`${prefix} generate "a lighthouse at dawn" --watch`, 'a first task, followed until it settles'],
    [`${prefix} tokens issue --account demo`, 'an access token for /api-key, /webhook, /destinations'],
  ];
  const width = Math.max(...steps.map(([command]) => command.length));
  return [
    `First start: the data dir is new. To get going, in another terminal in ${cwd}:`,
    ...steps.map(([command, what]) => `  ${command.padEnd(width)}   # ${what}`),
  ];
}
