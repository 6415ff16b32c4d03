import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type Client, createClient } from '../client/http-client.js';
import { UsageError } from './output.js';
import type { CommandContext } from './run.js';
import { chooseServer } from './server-discovery.js';

/** The API client for a command: its server (chooseServer: --url, IMGTASK_URL, the data dir's, the default) and --key (IMGTASK_API_KEY). */
export async function clientOf(context: CommandContext): Promise<Client> {
  const server = await chooseServer(context);
  if (!context.key) throw new UsageError('give an API key with --key or IMGTASK_API_KEY (imgtask keys create --account NAME)');
  return createClient({ ...server, key: context.key });
}

/**
 * Uploads the local files among `sources` (in order) and answers what each source becomes: an
 * image id, or the URL as given. `files`, when given, gets each upload's id or URL → its file name.
 */
export async function resolveSources(client: Client, sources: string[], as: 'id' | 'url', files?: Map<string, string>): Promise<string[]> {
  const local = sources.filter((s) => !/^https?:\/\//i.test(s) && !/^img_/.test(s));
  for (const file of local) if (!existsSync(file)) throw new UsageError(`no file ${file} (and not an http(s) URL)`);
  const uploaded = local.length ? await client.upload(await Promise.all(local.map(async (name) => ({ name, data: await readFile(name) })))) : [];
  let next = 0;
  return sources.map((source) => {
    if (!local.includes(source)) return source;
    const file = uploaded[next++];
    const value = as === 'id' ? file.id : file.service_url;
    files?.set(value, source);
    return value;
  });
}
