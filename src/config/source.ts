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
  /** Makes `next` current, then runs the listeners (awaited one by one). */
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
      for (const listener of listeners) await listener(next, previous);
    },
  };
}
