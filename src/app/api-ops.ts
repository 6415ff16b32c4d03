import type { Ops } from '../api/api-deps.js';
import type { OutputSigner } from '../domain/provenance.js';
import type { Store } from '../store/store-contract.js';
import type { Logger } from './logger.js';

/** What the API's access log and its operations routes (/metrics, /ready) read from the running service. */
export function createApiOps(deps: {
  logger: Logger;
  metrics: Pick<Ops, 'observeRequest'> & { contentType: string; render(): Promise<string> };
  notReady: () => Promise<string[]>;
  outputSigner: Pick<OutputSigner, 'status'>;
  store: Pick<Store, 'lanePauses'>;
}): Ops {
  const { metrics, outputSigner, store } = deps;
  return {
    accessLog: deps.logger,
    observeRequest: metrics.observeRequest,
    metrics: async () => ({ contentType: metrics.contentType, text: await metrics.render() }),
    notReady: deps.notReady,
    provenance: () => {
      const { state, reason } = outputSigner.status();
      return reason ? { state, reason } : { state };
    },
    // The pauses alone (not the lanes' figures): a readiness probe comes often and must stay cheap.
    pausedLanes: async () =>
      (await store.lanePauses.list()).map((pause) => ({ lane: pause.id, pausedAt: pause.pausedAt })),
  };
}
