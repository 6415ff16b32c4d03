import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { SpaceGuard } from '../services/space-guard.js';
import type { Store } from '../store/store-contract.js';
import type { ModelPreload } from './preload-models.js';

/**
 * What keeps the service from being ready (GET /ready), one phrase each: a store that refuses
 * writes (or, for the file store, whose folder is not writable), too little free space, models
 * still loading.
 */
export function createReadiness(deps: {
  store: Pick<Store, 'writeFailure'>;
  /** The file store's folder; null on PostgreSQL. */
  storeDir: string | null;
  space: Pick<SpaceGuard, 'problems'>;
  models: Pick<ModelPreload, 'asked' | 'loading'>;
}): () => Promise<string[]> {
  const { store, storeDir, space, models } = deps;
  return async () => {
    const out: string[] = [];
    const failure = store.writeFailure();
    if (failure) out.push(`store: ${failure}`);
    else if (storeDir !== null)
      await access(storeDir, constants.W_OK).catch((err: NodeJS.ErrnoException) =>
        out.push(`store: its folder is not writable (${err.code ?? err.message})`),
      );
    out.push(...(await space.problems().catch((err: Error) => [`storage: free space unknown (${err.message})`])));
    if (!models.asked()) out.push('models: not loading yet');
    else if (models.loading().length > 0) out.push(`models: still loading (${models.loading().join(', ')})`);
    return out;
  };
}
