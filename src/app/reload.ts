import type { Config } from '../config/schema.js';
import type { SettableConfigSource } from '../config/source.js';
import type { ProviderSet } from '../providers/provider-types.js';
import type { ComfyLog } from '../providers/remote/comfyui/outage.js';
import { buildProviderSet, type EmbeddedRuntime, secretNames } from './providers.js';

/** Config keys a running process cannot change: they need a restart. */
/** Read at start only: the signer's keys and settings are built once (docs/provenance.md). */
export const RESTART_KEYS = ['server', 'store', 'provenance'] as const;

/** The providers in force, and the config reload that rebuilds them before the new config applies. */
export interface ConfigReload {
  /** The providers built for the config in force. */
  providers(): ProviderSet;
  /**
   * Makes `next` the config in force, except `server`, `store` and `provenance`, which a running process
   * cannot change: those keep their values and are answered as deferred to the next start.
   * Providers are rebuilt first, so no request sees the new config with the old providers.
   */
  reload(next: Config): Promise<{ deferred: string[] }>;
  /** Rebuilds the providers, after a secret they use changed. */
  refreshProviders(): Promise<void>;
}

/** Holds the providers built for `initial` (the config in force) and rebuilds them with `build` on each change. */
export function createConfigReload(
  config: SettableConfigSource,
  build: (config: Config) => Promise<ProviderSet>,
  initial: ProviderSet,
): ConfigReload {
  let providers = initial;
  return {
    providers: () => providers,
    async reload(next) {
      const current = config.current();
      const deferred: string[] = RESTART_KEYS.filter(
        (key) => JSON.stringify(next[key]) !== JSON.stringify(current[key]),
      );
      // Where images live is chosen at start too (the blob stores are built once).
      const { storage, s3 } = current.images;
      if (JSON.stringify({ storage: next.images.storage, s3: next.images.s3 }) !== JSON.stringify({ storage, s3 }))
        deferred.push('images.storage');
      const applied: Config = {
        ...next,
        server: current.server,
        store: current.store,
        provenance: current.provenance,
        images: { ...next.images, storage, s3 },
      };
      providers = await build(applied);
      await config.set(applied);
      return { deferred };
    },
    async refreshProviders() {
      providers = await build(config.current());
    },
  };
}

/** Builds the providers for a config, decrypting the secrets their keys live in. */
export function providerBuilder(deps: {
  secret: (name: string) => Promise<string | undefined>;
  embedded: EmbeddedRuntime;
  /** Providers replacing the built ones by capability (tests' fakes). */
  injected?: Partial<ProviderSet>;
  log: (message: string) => void;
  /** A provider's own reports (a ComfyUI server down, then back), at their level. */
  report: ComfyLog;
}): (config: Config) => Promise<ProviderSet> {
  return async (next) => {
    const values = new Map<string, string>();
    for (const name of secretNames(next)) {
      const value = await deps.secret(name);
      if (value === undefined)
        deps.log(`providers: no secret "${name}" (imgtask secrets set ${name}); its provider runs without a key`);
      else values.set(name, value);
    }
    return buildProviderSet(next, deps.embedded, values, deps.injected, deps.report);
  };
}
