import { watch } from 'chokidar';
import { ConfigError, type ConfigFlags, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { ConfigSource } from '../config/source.js';

/** Keys a running server cannot change: they need a restart. */
const RESTART_KEYS = ['server', 'store'] as const;

/**
 * Watches the config file and applies edits without a restart: models, prices, providers,
 * limits, webhooks and the rest. An edit that does not validate is refused, with the reason
 * naming the key, and the old config stays in force; changes to server or store settings are
 * kept for the next start.
 */
export async function watchConfig(options: {
  file: string;
  flags: ConfigFlags;
  config: Pick<ConfigSource, 'current'>;
  apply: (next: Config) => Promise<void>;
  log: (message: string) => void;
}): Promise<{ close(): Promise<void> }> {
  const watcher = watch(options.file, { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 20 } });
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
      const current = options.config.current();
      for (const key of RESTART_KEYS) {
        if (JSON.stringify(next[key]) !== JSON.stringify(current[key])) {
          options.log(`config: ${key} changes apply at the next start`);
          next = { ...next, [key]: current[key] };
        }
      }
      await options.apply(next);
      options.log(`config: reloaded ${options.file}`);
    });
  };
  watcher.on('change', reload);
  watcher.on('add', reload);
  // Edits made before the initial scan finishes would be missed: start watching for real first.
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { close: () => watcher.close() };
}
