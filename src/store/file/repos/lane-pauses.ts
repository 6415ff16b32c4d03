import type { LanePauseRepo } from '../../repos/lane-pauses.js';
import type { JournalEngine } from '../journal/journal-engine.js';

export function createLanePauseRepo(engine: JournalEngine): LanePauseRepo {
  const { state } = engine;
  return {
    async list() {
      return state.lanePauses.capture();
    },
    async pause(record) {
      const paused = state.lanePauses.get(record.id);
      if (paused) return paused;
      await engine.commit('lane.pause', record);
      return state.lanePauses.get(record.id)!;
    },
    async resume(lane) {
      if (!state.lanePauses.get(lane)) return false;
      await engine.commit('lane.resume', { id: lane });
      return true;
    },
  };
}
