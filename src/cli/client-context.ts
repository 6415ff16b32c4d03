import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type Client, createClient } from '../client/http-client.js';
import { UsageError } from './output.js';
import type { CommandContext } from './run.js';
import { savedImageId } from './saved-images.js';
import { chooseServer } from './server-discovery.js';

/**
 * The API client for a command: its server (chooseServer: --url, IMGTASK_URL, the data dir's, the default) and --key
 * (IMGTASK_API_KEY).
 */
export async function clientOf(context: CommandContext): Promise<Client> {
  const server = await chooseServer(context);
  if (!context.key)
    throw new UsageError('give an API key with --key or IMGTASK_API_KEY (imgtask keys create --account NAME)');
  return createClient({ ...server, key: context.key });
}

/**
 * What each of `sources` becomes, in order: a URL or id as given; a local file that --out saved
 * from this server, its stored image's id (savedImageId); any other local file, uploaded, its
 * new image's id (or service URL, `as` 'url'). `files`, when given, gets each such id or URL →
 * its file name, so results name the file as the user gave it.
 */
export async function resolveSources(
  client: Client,
  sources: string[],
  as: 'id' | 'url',
  files?: Map<string, string>,
): Promise<string[]> {
  const local = sources.filter((s) => !/^https?:\/\//i.test(s) && !/^img_/.test(s));
  for (const file of local) if (!existsSync(file)) throw new UsageError(`no file ${file} (and not an http(s) URL)`);
  const read = await Promise.all(local.map(async (name) => ({ name, data: await readFile(name) })));
  const stored = await Promise.all(read.map((file) => savedImageId(client, file.name, file.data)));
  const toUpload = read.filter((_, i) => stored[i] === null);
  const uploaded = toUpload.length ? await client.upload(toUpload) : [];
  const values = new Map<string, string>();
  for (const [i, file] of read.entries()) if (stored[i] !== null) values.set(file.name, stored[i]);
  for (const [i, file] of toUpload.entries())
    values.set(file.name, as === 'id' ? uploaded[i].id : uploaded[i].service_url);
  return sources.map((source) => {
    const value = values.get(source);
    if (value === undefined) return source;
    files?.set(value, source);
    return value;
  });
}
