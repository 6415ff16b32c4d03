import type { Config } from './schema.js';

/**
 * The config in force, for everything that runs while it may be reloaded. Read `current()` at
 * the moment a setting is used (never copy a setting at start-up); subscribe with `onChange`
 * to act on a reload (resize a queue, rebuild providers).
 */
export interface ConfigSource {
  current(): Config;
  /** Called after each accepted reload, in subscription order; returns an unsubscribe function. */
  onChange(listener: (next: Config, previous: Config) => void | Promise<void>): () => void;
}

/** A ConfigSource whose owner (the config watcher, a test) replaces the config with `set`. */
export interface SettableConfigSource extends ConfigSource {
  /** Makes `next` current, then runs every listener (awaited one by one); rejects, after all ran, if any failed. */
  set(next: Config): Promise<void>;
}

export function createConfigSource(initial: Config): SettableConfigSource {
  let current = initial;
  const listeners = new Set<(next: Config, previous: Config) => void | Promise<void>>();
  return {
    current: () => current,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async set(next) {
      const previous = current;
      current = next;
      // Every listener runs even if one fails: the config is already in force for the rest.
      const failures: unknown[] = [];
      for (const listener of listeners) {
        try {
          await listener(next, previous);
        } catch (err) {
          failures.push(err);
        }
      }
      if (failures.length)
        throw new AggregateError(
          failures,
          `${failures.length} config listener(s) failed: ${failures.map((err) => (err as Error).message).join('; ')}`,
        );
    },
  };
}
