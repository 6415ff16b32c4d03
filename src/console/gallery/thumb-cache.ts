/**
 * Resized thumbnails kept in memory, least recently used out first, bounded by their total
 * bytes (a thumbnail is a few KB to a few tens of KB of webp). A thumbnail asked for again while
 * it is being made waits for that one resize: a grid asks for each only once.
 */
export function createThumbCache(maxBytes: number) {
  const entries = new Map<string, Buffer>();
  const making = new Map<string, Promise<Buffer>>();
  let bytes = 0;

  function keep(key: string, data: Buffer): void {
    if (data.byteLength > maxBytes) return;
    entries.set(key, data);
    bytes += data.byteLength;
    for (const [oldest, old] of entries) {
      if (bytes <= maxBytes) break;
      entries.delete(oldest);
      bytes -= old.byteLength;
    }
  }

  return {
    /** The kept thumbnail, or one made now by `make` (once, however many ask at the same time); `made` says which. */
    async get(key: string, make: () => Promise<Buffer>): Promise<{ data: Buffer; made: boolean }> {
      const kept = entries.get(key);
      if (kept) {
        // Map order is the LRU order: a hit moves to the newest end.
        entries.delete(key);
        entries.set(key, kept);
        return { data: kept, made: false };
      }
      let pending = making.get(key);
      if (!pending) {
        pending = make().finally(() => making.delete(key));
        making.set(key, pending);
        pending.then((data) => keep(key, data)).catch(() => undefined);
      }
      return { data: await pending, made: true };
    },
  };
}
