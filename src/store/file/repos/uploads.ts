import type { UploadRecord } from '../../records/uploads.js';
import type { UploadRepo } from '../../repos/uploads.js';
import type { JournalEngine } from '../journal/journal-engine.js';

/** Uploaded images and their owners over the journal; each account's count and bytes are kept in step (no scan). */
export function createUploadRepo(engine: JournalEngine): UploadRepo {
  const { state } = engine;
  return {
    async put(upload) {
      await engine.commit('upload.put', upload);
    },
    async get(id) {
      return state.uploads.get(id);
    },
    async delete(id) {
      if (!state.uploads.get(id)) return false;
      await engine.commit('upload.delete', { id });
      return true;
    },
    async createdBefore(accountId, before, limit) {
      const found: UploadRecord[] = [];
      for (const { id } of state.uploadsByTime.before(accountId, before)) {
        if (found.length >= limit) break;
        found.push(state.uploads.get(id)!);
      }
      return found;
    },
    async usage(accountId) {
      return state.uploadUsage.get(accountId);
    },
    async all() {
      return state.uploads.values();
    },
  };
}
