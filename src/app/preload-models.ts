import type { ProviderSet } from '../providers/provider-types.js';

/** A provider that can load its model before the first request (the embedded ones can). */
interface Preloadable {
  warmUp(): Promise<void>;
}
const preloadable = (provider: unknown): provider is Preloadable =>
  typeof (provider as Partial<Preloadable> | undefined)?.warmUp === 'function';

/** In the order they load: rating first (the most frequent and the quickest), the 1.3 GB background model last. */
const CAPABILITIES = [
  ['nsfwRater', 'nsfw rating'],
  ['altText', 'alt text'],
  ['backgroundRemover', 'background removal'],
] as const;

/**
 * Loads, in the background, the models of the providers in force that have one to load: a model
 * turned off in the config, replaced by a remote provider, or faked, is not among them. One at a
 * time, so two loads do not fight over the cores at start; each loads in its model's own worker
 * thread, so the event loop only waits for messages. A request for a model still loading simply
 * waits for that load. `stop()` keeps the next loads from starting; closing the providers ends
 * the one under way.
 */
export function startModelPreload(
  providers: ProviderSet,
  log: (message: string) => void,
): { stop(): void; done: Promise<void>; loading(): string[] } {
  let stopped = false;
  /** The models still to load, in order: what GET /ready waits for. A failed load leaves it too. */
  const waiting = new Set<string>(
    CAPABILITIES.filter(([capability]) => preloadable(providers[capability])).map(([, name]) => name),
  );
  const done = (async () => {
    for (const [capability, name] of CAPABILITIES) {
      const provider = providers[capability];
      if (stopped || !preloadable(provider)) continue;
      const started = performance.now();
      try {
        await provider.warmUp();
        if (!stopped) log(`models: ${name} loaded in the background in ${Math.round(performance.now() - started)} ms`);
      } catch (err) {
        // Not fatal: the first request that needs the model loads it (and reports a failure).
        if (!stopped) log(`models: ${name} did not preload: ${(err as Error).message}`);
      } finally {
        waiting.delete(name);
      }
    }
  })();
  return {
    stop: () => {
      stopped = true;
    },
    done,
    loading: () => [...waiting],
  };
}

/** The server's model preload: asked once it listens, and what GET /ready waits for. */
export interface ModelPreload {
  /**
   * Starts loading the models of the providers in force in the background, unless `enabled()` says
   * no. A process that runs no item (`serve --no-work`) needs no model: `needed` false marks the
   * preload as asked without loading, so GET /ready does not wait for models it never loads.
   */
  preload(needed?: boolean): void;
  /** Whether the server has asked for the preload yet (whether it then ran or was off). */
  asked(): boolean;
  /** The models still loading. */
  loading(): string[];
  /** Keeps the next loads from starting. */
  stop(): void;
}

/**
 * `enabled` is false when providers are injected (tests' fakes decide which models run, and a real
 * one there loads on first use) or `embedded.preload` is off.
 */
export function createModelPreload(deps: {
  providers: () => ProviderSet;
  enabled: () => boolean;
  log: (message: string) => void;
}): ModelPreload {
  let running: ReturnType<typeof startModelPreload> | undefined;
  let asked = false;
  return {
    preload(needed = true) {
      asked = true;
      if (!needed || !deps.enabled()) return;
      running ??= startModelPreload(deps.providers(), deps.log);
    },
    asked: () => asked,
    loading: () => running?.loading() ?? [],
    stop: () => running?.stop(),
  };
}
