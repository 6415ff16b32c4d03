import { watch } from 'chokidar';
import { ConfigError, type ConfigFlags, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';

const workflowFiles = (workflows: Config['workflows'] | undefined): string[] => Object.values(workflows ?? {}).map((workflow) => workflow.file);

/**
 * Watches the config file (and the ComfyUI workflow files it names) and applies edits without a restart: models, prices, providers,
 * limits, webhooks and the rest. An edit that does not validate is refused, with the reason
 * naming the key, and the old config stays in force; `apply` keeps changes to server or store
 * settings for the next start and names them.
 */
export async function watchConfig(options: {
  file: string;
  flags: ConfigFlags;
  apply: (next: Config) => Promise<{ deferred: string[] }>;
  /** The ComfyUI workflow files of the config in force: an edit to one reloads the config as an edit to the file does. */
  workflows?: Config['workflows'];
  log: (message: string) => void;
}): Promise<{ close(): Promise<void> }> {
  const watcher = watch([options.file, ...workflowFiles(options.workflows)], { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 20 } });
  let applying = Promise.resolve();
  const reload = () => {
    applying = applying.then(async () => {
      let next: Config;
      try {
        next = loadConfig({ file: options.file, flags: options.flags });
      } catch (err) {
        options.log(`config: reload refused, the old config stays in force: ${err instanceof ConfigError ? err.message.replace(/\n\s*/g, ' ') : (err as Error).message}`);
        return;
      }
      // The workflows the new config names are watched too (one it no longer names stays watched: a harmless reload).
      watcher.add(workflowFiles(next.workflows));
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
