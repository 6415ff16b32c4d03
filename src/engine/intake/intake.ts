import type { Store } from '../../store/store-contract.js';
import type { FleetKeySlots } from '../runner/key-gate.js';
import type { IntakeDeps, TaskIntake } from './intake-types.js';
import { createLocalIntake } from './local.js';
import { createSharedIntake } from './shared.js';

/**
 * Fleet-wide slots of keys with a maxConcurrent, where processes share the store; none where one process owns it (its
 * lanes' count is the fleet's).
 */
export const fleetKeySlotsOf = (store: Store): FleetKeySlots | undefined => store.shared?.keySlots;

/** The one place an intake is chosen: shared when the store is shared by several processes, else local. */
export function openIntake(store: Store, deps: IntakeDeps): TaskIntake {
  return store.shared ? createSharedIntake(store.shared, deps) : createLocalIntake(store, deps);
}
