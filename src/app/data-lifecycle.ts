import type { ConfigSource } from '../config/source.js';
import type { RetentionKind } from '../domain/retention.js';
import type { TaskRecord } from '../engine/task-registry.js';
import { taskEventEnvelope } from '../engine/task-views.js';
import { type AccountErase, createAccountErase } from '../services/account-erase.js';
import { createDataRemoval, type DataRemoval } from '../services/data-removal.js';
import type { Clock } from '../services/ports.js';
import { createRetention, type Retention } from '../services/retention-sweep.js';
import type { SpaceGuard } from '../services/space-guard.js';
import { createStorageInventory, type StorageInventoryService } from '../services/storage-inventory.js';
import type { Store } from '../store/store-contract.js';
import type { BlobStores } from './blob-storage.js';

/** Removing data: a task's or an upload's, aged out (retention), an erased account's; and what storage holds. */
export interface DataLifecycle {
  dataRemoval: DataRemoval;
  accountErase: AccountErase;
  retention: Retention;
  storageInventory: StorageInventoryService;
}

export function createDataLifecycle(deps: {
  store: Store;
  blobs: BlobStores;
  clock: Clock;
  config: ConfigSource;
  space: Pick<SpaceGuard, 'problems'>;
  log: (message: string) => void;
  /** Cancels a pending task through the one settlement. */
  cancel: (taskId: string) => Promise<TaskRecord | undefined>;
  /** Resolves once this process has written a just-settled task's event. */
  eventRecorded: (taskId: string) => Promise<void>;
  /** Told how many of a kind a retention sweep removed (the metric). */
  retentionRemoved: (kind: RetentionKind, count: number) => void;
}): DataLifecycle {
  const { store, blobs, clock, config, space, log } = deps;
  // Deleting a task's or an upload's data (DELETE /tasks/{id}, /image/upload/{id}; retention and erase too).
  const dataRemoval = createDataRemoval({
    store,
    blobs,
    clock,
    cancel: deps.cancel,
    eventEnvelope: taskEventEnvelope,
    eventRecorded: deps.eventRecorded,
  });
  // Erasing an account (imgtask accounts erase), and finishing an erase a crash interrupted (at start and by the
  // sweep).
  const accountErase = createAccountErase({ store, clock, removal: dataRemoval, log });
  // What has aged out (retention.*), removed by the sweep and by imgtask sweep.
  const retention = createRetention({
    store,
    config,
    clock,
    removal: dataRemoval,
    log,
    removed: deps.retentionRemoved,
  });
  // What the blob storage holds, and orphans (imgtask doctor, --fix).
  const storageInventory = createStorageInventory({
    store,
    blobs,
    fixHeld: async () => {
      const refused = store.writeFailure();
      if (refused) return `the store refuses writes (${refused})`;
      const short = await space.problems();
      return short.length > 0 ? short.join('; ') : null;
    },
  });
  return { dataRemoval, accountErase, retention, storageInventory };
}
