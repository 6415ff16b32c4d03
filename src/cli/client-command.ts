import type { Client } from '../client/http-client.js';
import { clientOf } from './client-context.js';
import { command } from './run.js';

/** A client command: the API client, JSON off a terminal, and the shared exit codes. */
export const clientCommand = <Args extends unknown[]>(
  // biome-ignore lint/suspicious/noConfusingVoidType: a command body answers an exit code, or nothing for 0
  run: (client: Client, json: boolean, ...args: Args) => Promise<number | void>,
) => command(async (ctx, ...args: Args) => run(await clientOf(ctx), ctx.json, ...args), { json: 'auto' });
