/**
 * A record as a snapshot stores it, and as a collection keeps it until it is first read: its
 * top-level primitive fields as one JSON object, a tab, then its other fields (objects and
 * arrays) as another (`{}` when none). JSON never holds a raw tab, so the split is unambiguous.
 * Kept as one flat string, a million stored records cost the GC a million leaf objects instead
 * of tens of millions of small ones, and start-up parses only the short first half (the fields
 * the indexes read).
 */
export function encodeRecordLine(record: object): string {
  const flat: Record<string, unknown> = {};
  const nested: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'object' && value !== null) nested[key] = value;
    else flat[key] = value;
  }
  return `${JSON.stringify(flat)}\t${JSON.stringify(nested)}`;
}

/** The primitive fields of a record line: what indexes need (throws if the line is not one). */
export function parseRecordStub<T>(line: string): T {
  return JSON.parse(line.slice(0, line.indexOf('\t')));
}

/** The whole record of a line: both halves joined into one object text, parsed once. */
export function parseRecordLine<T>(line: string): T {
  const tab = line.indexOf('\t');
  if (line.length - tab === 3 && line.endsWith('{}')) return JSON.parse(line.slice(0, tab));
  return JSON.parse(`${line.slice(0, tab - 1)},${line.slice(tab + 2)}`);
}

/**
 * Snapshot lines kept as read, off the JS heap: the file's chunks, and a number per line
 * (its place in them), so a million stored records give the GC nothing to trace. A chunk stays
 * while any of its lines is unread, at most the size of the snapshot.
 */
export class LineStore {
  private readonly chunks: Buffer[] = [];
  private readonly bases: number[] = [];
  private end = 0;
  /** A handle to the newline-terminated line starting at `chunk[start]`. */
  keep(chunk: Buffer, start: number): number {
    if (this.chunks[this.chunks.length - 1] !== chunk) {
      this.chunks.push(chunk);
      this.bases.push(this.end);
      this.end += chunk.length;
    }
    return this.bases[this.bases.length - 1] + start;
  }
  text(handle: number): string {
    let lo = 0;
    let hi = this.bases.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.bases[mid] <= handle) lo = mid;
      else hi = mid - 1;
    }
    const chunk = this.chunks[lo];
    const start = handle - this.bases[lo];
    return chunk.toString('utf8', start, chunk.indexOf(10, start));
  }
}
