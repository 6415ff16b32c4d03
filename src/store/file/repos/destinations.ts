import { AppError } from '../../../domain/errors.js';
import type { DestinationRecord } from '../../records/destinations.js';
import type { DestinationRepo } from '../../repos/destinations.js';
import type { JournalEngine } from '../journal/journal-engine.js';

export function createDestinationRepo(engine: JournalEngine): DestinationRepo {
  const { state } = engine;
  const byName = (accountId: string, name: string) => {
    const id = state.destinationByName.get(`${accountId}/${name}`);
    return id === undefined ? undefined : state.destinations.get(id);
  };
  async function put(destination: DestinationRecord): Promise<DestinationRecord> {
    // The name check and the write are one step: two creates racing for a name cannot both win.
    const holder = byName(destination.accountId, destination.name);
    if (holder && holder.id !== destination.id)
      throw new AppError('DESTINATION_NAME_TAKEN', `the account already has a destination named "${destination.name}"`);
    await engine.commit('destination.put', destination);
    return state.destinations.get(destination.id)!;
  }
  return {
    put,
    async replace(destination) {
      return state.destinations.get(destination.id) ? put(destination) : undefined;
    },
    async delete(id) {
      if (state.destinations.get(id)) await engine.commit('destination.delete', { id });
    },
    async get(id) {
      return state.destinations.get(id);
    },
    async getByName(accountId, name) {
      return byName(accountId, name);
    },
    async listByAccount(accountId) {
      return Array.from(state.destinationsByAccount.ids(accountId), (id) => state.destinations.get(id)!);
    },
  };
}
