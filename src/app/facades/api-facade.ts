import type { ApiDeps } from '../../api/api-deps.js';
import type { ServiceParts } from '../service-parts.js';

/** The API's facade: the services its routes call, the engine's request side, and the operations view. */
export function apiDepsOf(parts: ServiceParts): ApiDeps {
  const { engine } = parts;
  return {
    config: parts.config,
    apiKeys: parts.apiKeys,
    auth: parts.auth,
    tasks: engine.tasks,
    registry: parts.registry,
    images: parts.images,
    uploads: parts.uploads,
    dataRemoval: parts.dataRemoval,
    videos: parts.videos,
    webhooks: parts.webhooks,
    destinations: parts.destinations,
    idempotency: parts.idempotency,
    taskStreams: engine.streams,
    accountEvents: engine.accountEvents,
    usage: parts.usage,
    outputSigner: parts.outputSigner,
    verifySource: parts.verifySource,
    log: parts.log,
    ops: parts.ops,
  };
}
