import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { replaceFileDurably } from './durable-fs.js';

/** What a blob store holds: files named `<prefix>_<22 base62>.<ext>`. */
export interface BlobKind {
  prefix: string;
  exts: readonly string[];
}
export const IMAGE_BLOBS: BlobKind = { prefix: 'img', exts: ['webp', 'png', 'jpg', 'gif'] };
export const VIDEO_BLOBS: BlobKind = { prefix: 'vid', exts: ['mp4', 'webp'] };

/**
 * Media bytes on local disk: `<root>/<2 chars>/<id>.<ext>`, written durably (temp file,
 * fsync, rename, fsync dir) before any task record points at them. Sharded so no folder
 * grows past a few thousand files. One store per kind (images, videos), so a name of one
 * kind is never served as the other.
 */
export class BlobStore {
  private readonly file: RegExp;

  constructor(
    private readonly root: string,
    private readonly kind: BlobKind = IMAGE_BLOBS,
  ) {
    this.file = new RegExp(`^(${kind.prefix}_[0-9A-Za-z]{22})\\.(${kind.exts.join('|')})$`);
  }

  isFileName(name: string): boolean {
    return this.file.test(name);
  }

  pathOf(fileName: string): string {
    const match = this.file.exec(fileName);
    if (!match) throw new Error(`not a ${this.kind.prefix} file name: ${fileName}`);
    return join(this.root, match[1].slice(this.kind.prefix.length + 1, this.kind.prefix.length + 3), fileName);
  }

  async put(fileName: string, data: Buffer): Promise<void> {
    const path = this.pathOf(fileName);
    const dir = dirname(path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await replaceFileDurably(path, dir, (handle) => handle.writeFile(data));
  }

  async read(fileName: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(fileName));
    } catch {
      return null;
    }
  }

  async size(fileName: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(fileName))).size;
    } catch {
      return null;
    }
  }

  /** Finds a stored file by id alone, whatever its extension. */
  async findById(id: string): Promise<string | null> {
    for (const ext of this.kind.exts) {
      const name = `${id}.${ext}`;
      if (this.file.test(name) && (await this.size(name)) !== null) return name;
    }
    return null;
  }
}
