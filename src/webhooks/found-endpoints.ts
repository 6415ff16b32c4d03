/**
 * What the audience check found for a settlement about to be written, kept by task id until the
 * settlement's `task:settled` takes it, so one settlement reads the task's webhooks once. Two
 * attempts at one settlement at once (two items finishing together both try to settle) share
 * one read. Taken at most once; an attempt whose write did not apply leaves its entry to be
 * pushed out by newer ones: past `limit`, the oldest goes (its event, if any, then reads again).
 */
export function createFoundEndpoints<Endpoints>(limit: number) {
  const kept = new Map<string, { status: string; endpoints: Promise<Endpoints> }>();
  return {
    /**
     * What `read` answers for `taskId` settling as `status`, kept; the kept answer while one is (a concurrent
     * attempt's).
     */
    find(taskId: string, status: string, read: () => Promise<Endpoints>): Promise<Endpoints> {
      const known = kept.get(taskId);
      if (known?.status === status) return known.endpoints;
      const entry = { status, endpoints: read() };
      // Deleted first, so a task checked again counts as the newest.
      kept.delete(taskId);
      kept.set(taskId, entry);
      if (kept.size > limit) kept.delete(kept.keys().next().value!);
      // A failed read is not kept: the settled event reads again.
      entry.endpoints.catch(() => kept.get(taskId) === entry && kept.delete(taskId));
      return entry.endpoints;
    },
    /** What was found for `taskId` settling as `status`, once; undefined when nothing (or another status) was. */
    take(taskId: string, status: string): Promise<Endpoints> | undefined {
      const entry = kept.get(taskId);
      kept.delete(taskId);
      return entry?.status === status ? entry.endpoints : undefined;
    },
  };
}
