import { checkLedger } from '../../services/doctor.js';
import type { AdminDeps } from '../admin/admin-deps.js';
import type { ServiceParts } from '../service-parts.js';

/** The operator actions' facade (the CLI on a data dir, the admin socket of a running server). */
export function adminDepsOf(parts: ServiceParts): AdminDeps {
  const { store } = parts;
  return {
    config: parts.config,
    clock: parts.clock,
    publicBase: parts.publicBase,
    accounts: parts.accounts,
    apiKeys: parts.apiKeys,
    tokens: parts.tokens,
    consoleSessions: parts.consoleSessions,
    webhooks: parts.webhooks,
    destinations: parts.destinations,
    usage: parts.usage,
    operator: parts.operator,
    secrets: parts.secrets,
    refreshProviders: parts.configReload.refreshProviders,
    engine: parts.engine,
    tasks: parts.engine.tasks,
    accountErase: parts.accountErase,
    retention: parts.retention,
    checkLedger: () => checkLedger(store),
    space: parts.space,
    storageInventory: parts.storageInventory,
    outputSigner: parts.outputSigner,
  };
}
