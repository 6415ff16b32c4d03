import { createReadStream } from 'node:fs';
import { mkdir, opendir, readFile, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { nodeStorageFs, replaceFileDurably, type StorageFs } from './durable-fs.js';

/** What a blob store holds: files named `<prefix>_<22 base62>.<ext>`. */
export interface BlobKind {
  prefix: string;
  exts: readonly string[];
}
export const IMAGE_BLOBS: BlobKind = { prefix: 'img', exts: ['webp', 'png', 'jpg', 'gif'] };
export const VIDEO_BLOBS: BlobKind = { prefix: 'vid', exts: ['mp4', 'webp'] };
/** A video's poster frame: beside its video (same folder, same id), under a name no video has. */
export const POSTER_BLOBS: BlobKind = { prefix: 'vid', exts: ['poster.webp'] };

/** A slice of a blob, both ends inclusive (as in an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/** An opened blob: its whole size, and a stream of the bytes asked for. */
export interface OpenedBlob {
  size: number;
  stream: Readable;
}

/** A stored blob as a listing names it: doctor's inventory and orphans. */
export interface ListedBlob {
  name: string;
  bytes: number;
  /** When its bytes were written (content never changes under a name): how old an orphan is. */
  modifiedAt: Date;
}

/**
 * Where media bytes live, one store per kind (images, videos), so a name of one kind is never
 * served as the other. Content never changes under a name. `put` resolves once the bytes are
 * durable, before any task record points at them. Reads answer null for a name that is not
 * this kind's, or that holds nothing; a storage that cannot be reached throws.
 */
export interface BlobStore {
  isFileName(name: string): boolean;
  put(name: string, data: Buffer, contentType: string): Promise<void>;
  read(name: string): Promise<Buffer | null>;
  stat(name: string): Promise<{ size: number } | null>;
  /** The blob's bytes (only `range` when given; the caller checks it against `stat` first). */
  open(name: string, range?: ByteRange): Promise<OpenedBlob | null>;
  /** Finds a stored file by id alone, whatever its extension. */
  findById(id: string): Promise<string | null>;
  /**
   * Every blob of this kind, shard by shard, as it is found (never held as one list); other files beside them are
   * skipped.
   */
  list(): AsyncIterable<ListedBlob>;
  /**
   * Removes a blob (a deleted task's output, an upload); a name that holds nothing, or is not this kind's, is no error.
   */
  delete(name: string): Promise<void>;
}

/**
 * The names of a kind and where each lives: `<2 chars>/<name>` (the two characters after the
 * prefix), sharded so no folder grows past a few thousand files.
 */
function namesOf(kind: BlobKind) {
  const exts = kind.exts.map((ext) => ext.replaceAll('.', '\\.')).join('|');
  const file = new RegExp(`^(${kind.prefix}_[0-9A-Za-z]{22})\\.(${exts})$`);
  return {
    isFileName: (name: string) => file.test(name),
    /** The sharded relative path of a name; null for a name that is not this kind's. */
    relative(name: string): string | null {
      const match = file.exec(name);
      return match ? `${match[1].slice(kind.prefix.length + 1, kind.prefix.length + 3)}/${name}` : null;
    },
  };
}

/** The entries of a folder as they are read; none for a folder that is not there. */
async function* entriesOf(dir: string) {
  const folder = await opendir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (folder) yield* folder;
}

async function findById(store: BlobStore, kind: BlobKind, id: string): Promise<string | null> {
  for (const ext of kind.exts) {
    const name = `${id}.${ext}`;
    if (store.isFileName(name) && (await store.stat(name)) !== null) return name;
  }
  return null;
}

/**
 * Media bytes on local disk: `<root>/<2 chars>/<id>.<ext>`, written durably (temp file,
 * fsync, rename, fsync dir). A write that fails (a full disk: ENOSPC) removes its temp file and
 * throws as it failed.
 */
export class LocalBlobStore implements BlobStore {
  private readonly names: ReturnType<typeof namesOf>;

  constructor(
    readonly root: string,
    private readonly kind: BlobKind = IMAGE_BLOBS,
    private readonly fs: StorageFs = nodeStorageFs,
  ) {
    this.names = namesOf(kind);
  }

  isFileName(name: string): boolean {
    return this.names.isFileName(name);
  }

  private pathOf(name: string): string | null {
    const relative = this.names.relative(name);
    return relative === null ? null : join(this.root, relative);
  }

  async put(name: string, data: Buffer): Promise<void> {
    const path = this.pathOf(name);
    if (!path) throw new Error(`not a ${this.kind.prefix} file name: ${name}`);
    const dir = dirname(path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await replaceFileDurably(path, dir, (handle) => handle.writeFile(data), 0o600, this.fs);
  }

  async read(name: string): Promise<Buffer | null> {
    const path = this.pathOf(name);
    return path ? readFile(path).catch(() => null) : null;
  }

  async stat(name: string): Promise<{ size: number } | null> {
    const path = this.pathOf(name);
    const info = path ? await stat(path).catch(() => null) : null;
    return info?.isFile() ? { size: info.size } : null;
  }

  async open(name: string, range?: ByteRange): Promise<OpenedBlob | null> {
    const info = await this.stat(name);
    if (!info) return null;
    return { size: info.size, stream: createReadStream(this.pathOf(name)!, range) };
  }

  findById(id: string): Promise<string | null> {
    return findById(this, this.kind, id);
  }

  async *list(): AsyncIterable<ListedBlob> {
    for await (const shard of entriesOf(this.root)) {
      if (!shard.isDirectory()) continue;
      const dir = join(this.root, shard.name);
      for await (const entry of entriesOf(dir)) {
        // Only this kind's names in their own shard: temp files, a video's poster beside it, stray files are not its
        // blobs.
        if (!entry.isFile() || this.pathOf(entry.name) !== join(dir, entry.name)) continue;
        const info = await stat(join(dir, entry.name)).catch(() => null); // removed since the folder was read
        if (info) yield { name: entry.name, bytes: info.size, modifiedAt: info.mtime };
      }
    }
  }

  async delete(name: string): Promise<void> {
    const path = this.pathOf(name);
    if (!path) return;
    await unlink(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}

/** What an object storage (an S3 bucket) offers a blob store; `app` hands in the real one. */
export interface ObjectStorage {
  /** Resolves once the object is durable. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** null when there is no such object. */
  head(key: string): Promise<{ size: number } | null>;
  /** null when there is no such object; `size` is the whole object's. */
  get(key: string, range?: ByteRange): Promise<OpenedBlob | null>;
  /** Removes the object; no error when there is none. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, page by page. */
  list(prefix: string): AsyncIterable<{ key: string; size: number; modifiedAt: Date }>;
}

/**
 * Media bytes in an object storage shared by every process: `<keyPrefix><2 chars>/<id>.<ext>`
 * (the key prefix names the kind's folder, as `images/`).
 */
export class ObjectBlobStore implements BlobStore {
  private readonly names: ReturnType<typeof namesOf>;

  constructor(
    private readonly objects: ObjectStorage,
    private readonly keyPrefix: string,
    private readonly kind: BlobKind = IMAGE_BLOBS,
  ) {
    this.names = namesOf(kind);
  }

  isFileName(name: string): boolean {
    return this.names.isFileName(name);
  }

  /** The object key of a name; null for a name that is not this kind's. */
  keyOf(name: string): string | null {
    const relative = this.names.relative(name);
    return relative === null ? null : `${this.keyPrefix}${relative}`;
  }

  async put(name: string, data: Buffer, contentType: string): Promise<void> {
    const key = this.keyOf(name);
    if (!key) throw new Error(`not a ${this.kind.prefix} file name: ${name}`);
    await this.objects.put(key, data, contentType);
  }

  async read(name: string): Promise<Buffer | null> {
    const opened = await this.open(name);
    if (!opened) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async stat(name: string): Promise<{ size: number } | null> {
    const key = this.keyOf(name);
    return key ? this.objects.head(key) : null;
  }

  async open(name: string, range?: ByteRange): Promise<OpenedBlob | null> {
    const key = this.keyOf(name);
    return key ? this.objects.get(key, range) : null;
  }

  findById(id: string): Promise<string | null> {
    return findById(this, this.kind, id);
  }

  async *list(): AsyncIterable<ListedBlob> {
    for await (const object of this.objects.list(this.keyPrefix)) {
      const name = object.key.slice(object.key.lastIndexOf('/') + 1);
      if (this.keyOf(name) === object.key) yield { name, bytes: object.size, modifiedAt: object.modifiedAt };
    }
  }

  async delete(name: string): Promise<void> {
    const key = this.keyOf(name);
    if (key) await this.objects.delete(key);
  }
}
