import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type RunningServer, runningServers } from '../app/server-registry.js';
import { serversElsewhere } from './data-dir-guard.js';
import type { CommandContext } from './run.js';
import { httpUrlOption } from './url-option.js';

/** Where `imgtask serve` listens unless told otherwise (config/default.json's server.host and port). */
const DEFAULT_URL = 'http://127.0.0.1:8080';
const NAMED = '--url or IMGTASK_URL names the server';

/** The server a client command talks to, and what to say when it cannot be reached: how it was chosen. */
interface ServerChoice {
  url: string;
  /** Said after "is `imgtask serve` running at …?" when the server does not answer. */
  unreachableHint: string;
}

/** A path as the file system resolves it (links followed), so two spellings of one data dir match. */
const realOrResolved = async (path: string): Promise<string> => realpath(path).catch(() => resolve(path));

/** The running server whose data dir is `data` (the registry `serve` writes), if any; the oldest when several are. */
async function serverOnDataDir(data: string): Promise<RunningServer | undefined> {
  const root = await realOrResolved(data);
  for (const server of await runningServers())
    if (server.dataDir === root || (await realOrResolved(server.dataDir)) === root) return server;
  return undefined;
}

/**
 * The server a client command talks to: --url (or IMGTASK_URL) when given (UsageError when it is
 * not an http(s) URL); else the server running
 * on the command's data dir, as `imgtask console` finds it (so `serve --port 9000` needs no --url);
 * else the default local one. Asked again on each connection, so a long-running command follows a
 * server restarted on another port.
 */
export async function chooseServer(context: Pick<CommandContext, 'url' | 'urlFrom' | 'data'>): Promise<ServerChoice> {
  if (context.url !== undefined)
    return { url: httpUrlOption(context.url, context.urlFrom ?? '--url', DEFAULT_URL), unreachableHint: `(${NAMED})` };
  const found = await serverOnDataDir(context.data);
  if (found)
    return {
      url: found.url,
      unreachableHint: `(the server of the data dir ${found.dataDir}, pid ${found.pid}; ${NAMED})`,
    };
  return {
    url: DEFAULT_URL,
    unreachableHint: `(${NAMED})${await serversElsewhere(await realOrResolved(context.data))}`,
  };
}
