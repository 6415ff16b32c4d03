import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { replaceFileDurably } from './durable-fs.js';

const FILE = /^(img_[0-9A-Za-z]{22})\.(png|jpg|webp|gif)$/;

/**
 * Image bytes on local disk: `images/<2 chars>/<id>.<ext>`, written durably (temp file,
 * fsync, rename, fsync dir) before any task record points at them. Sharded so no folder
 * grows past a few thousand files.
 */
export class BlobStore {
  constructor(private readonly root: string) {}

  static isFileName(name: string): boolean {
    return FILE.test(name);
  }

  pathOf(fileName: string): string {
    const match = FILE.exec(fileName);
    if (!match) throw new Error(`not an image file name: ${fileName}`);
    return join(this.root, match[1].slice(4, 6), fileName);
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

  /** Finds a stored image by id alone, whatever its extension. */
  async findById(id: string): Promise<string | null> {
    for (const ext of ['webp', 'png', 'jpg', 'gif']) {
      const name = `${id}.${ext}`;
      if (FILE.test(name) && (await this.size(name)) !== null) return name;
    }
    return null;
  }
}
