import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { watch } from 'chokidar';
import { ConfigError, type ConfigFlags, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';

const workflowFiles = (workflows: Config['workflows'] | undefined): string[] =>
  Object.values(workflows ?? {}).map((workflow) => workflow.file);

/**
 * Watches the config file (and the ComfyUI workflow files it names) and applies edits without a restart: models,
 * prices, providers,
 * limits, webhooks and the rest. An edit that does not validate is refused, with the reason
 * naming the key, and the old config stays in force; a change to any file the refused load read
 * (a workflow file fixed) tries it again; `apply` keeps changes to server or store
 * settings for the next start and names them.
 */
export async function watchConfig(options: {
  file: string;
  flags: ConfigFlags;
  apply: (next: Config) => Promise<{ deferred: string[] }>;
  /**
   * The ComfyUI workflow files of the config in force: an edit to one reloads the config as an edit to the file does.
   */
  workflows?: Config['workflows'];
  log: (message: string) => void;
}): Promise<{ close(): Promise<void> }> {
  const watcher = watch([options.file, ...workflowFiles(options.workflows)], {
    ignoreInitial: true,
    awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 20 },
  });
  let applying = Promise.resolve();
  /**
   * Adds files to the watch, resolving once chokidar watches each that exists (an edit right after is seen), within a
   * second.
   */
  const watchAlso = async (paths: string[]) => {
    const fresh = paths.filter((path) => !isWatched(path));
    if (fresh.length === 0) return;
    watcher.add(fresh);
    const deadline = Date.now() + 1000;
    while (fresh.some((path) => existsSync(path) && !isWatched(path)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
  };
  const isWatched = (path: string) => watcher.getWatched()[dirname(path)]?.includes(basename(path)) ?? false;
  const reload = () => {
    applying = applying.then(async () => {
      let next: Config;
      const read: string[] = [];
      try {
        next = loadConfig({ file: options.file, flags: options.flags, read });
      } catch (err) {
        // Every file the refused config read is watched, the broken one included: fixing any of them retries.
        await watchAlso(read);
        options.log(
          `config: reload refused, the old config stays in force: ${err instanceof ConfigError ? err.message.replace(/\n\s*/g, ' ') : (err as Error).message}`,
        );
        return;
      }
      // The workflows the new config names are watched too (one it no longer names stays watched: a harmless reload).
      await watchAlso(read);
      try {
        const { deferred } = await options.apply(next);
        for (const key of deferred) options.log(`config: ${key} changes apply at the next start`);
        options.log(`config: reloaded ${options.file}`);
      } catch (err) {
        // Logged, never thrown: a rejected chain would skip every later edit.
        options.log(`config: reload of ${options.file} failed: ${(err as Error).message}`);
      }
    });
  };
  watcher.on('change', reload);
  watcher.on('add', reload);
  // Edits made before the initial scan finishes would be missed: start watching for real first.
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { close: () => watcher.close() };
}
