import { environment } from '../config/environment.js';
import type { Config } from '../config/schema.js';
import type { OutputSigner } from '../domain/provenance.js';
import type { C2paLoad } from '../media/c2pa.js';
import { loadSigningKeys, loadTrustAnchors } from '../services/provenance-keys.js';
import { createOutputSigner } from '../services/provenance-signer.js';
import type { Logger } from './logger.js';

/**
 * The service's output signer, built at start from `provenance` (read at start): off when
 * disabled; unavailable, with one warning, when c2pa-node's binary does not load here; a
 * certificate that is refused throws, and the start fails with why.
 */
export function openOutputSigner(args: {
  config: Config;
  dataDir: string;
  secret: (name: string) => Promise<string | undefined>;
  /** The plain log, when the caller takes messages (tests, the CLI); else the structured logger. */
  log?: (message: string) => void;
  logger: Logger;
  load?: () => Promise<C2paLoad>;
}): Promise<OutputSigner> {
  const at = (level: 'info' | 'warn') => (message: string) =>
    args.log ? args.log(message) : args.logger[level]({ component: 'provenance' }, message);
  const log = { info: at('info'), warn: at('warn') };
  const { provenance } = args.config;
  return createOutputSigner({
    settings: provenance,
    keys: () =>
      loadSigningKeys({ provenance, dataDir: args.dataDir, secret: args.secret, env: environment.secret, log }),
    // Signing off: verify still trusts the local CA (when one was made) and provenance.trustAnchors.
    anchorsPem: () =>
      loadTrustAnchors({ provenance, dataDir: args.dataDir, secret: args.secret, env: environment.secret }),
    load: args.load,
    log: log.warn,
  });
}
