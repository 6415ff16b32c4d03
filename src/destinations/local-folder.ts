import { mkdir, open, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import type { StorageDriver } from './storage-driver.js';
import { publicUrl, StorageError } from './storage-driver.js';

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

const failure = (what: string, err: unknown) =>
  new StorageError(`cannot ${what}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);

/**
 * Writes objects under a folder on this server. The folder must lie under one of the
 * operator's allowed roots, and every write is checked again after resolving symlinks, so
 * neither `..` in a key nor a symlink planted in the tree can escape.
 */
export function createLocalFolder(options: {
  path: string;
  publicBaseUrl?: string;
  allowedRoots: readonly string[];
}): StorageDriver {
  const base = normalize(options.path);

  /** The file a key names, and the key as written (normalized: `a//b` and `a/./b` name the file `a/b`). */
  function target(key: string): { path: string; key: string } {
    const path = normalize(join(base, key));
    if (!inside(base, path) || path === base) throw new StorageError(`the key ${key} leaves the destination folder`);
    return { path, key: relative(base, path).split(sep).join('/') };
  }

  /**
   * The file's path with its folder's symlinks resolved, refused when that lies outside the folder or the allowed
   * roots.
   */
  async function realFile(path: string): Promise<string> {
    const roots = await Promise.all(options.allowedRoots.map((root) => realpath(root).catch(() => null)));
    let realDir: string;
    let realBase: string;
    try {
      [realDir, realBase] = await Promise.all([realpath(dirname(path)), realpath(base)]);
    } catch (err) {
      throw failure('find the folder', err);
    }
    if (!inside(realBase, realDir) || !roots.some((root) => root !== null && inside(root, realDir))) {
      throw new StorageError('the destination folder resolves outside the allowed roots (a symlink?)');
    }
    return join(realDir, basename(path));
  }

  return {
    async put(object) {
      const { path, key } = target(object.key);
      try {
        await mkdir(dirname(path), { recursive: true, mode: 0o755 });
      } catch (err) {
        throw failure('create the folder', err);
      }
      const file = await realFile(path);
      // Written aside and renamed, so a reader never sees half a file.
      const temp = `${file}.${process.pid}.tmp`;
      try {
        const handle = await open(temp, 'w', 0o644);
        try {
          await handle.writeFile(object.data);
          await handle.datasync();
        } finally {
          await handle.close();
        }
        await rename(temp, file);
      } catch (err) {
        await unlink(temp).catch(() => undefined);
        throw failure('write the file', err);
      }
      return { key, url: publicUrl(options.publicBaseUrl, key) };
    },
    async remove(key) {
      const file = await realFile(target(key).path);
      try {
        await unlink(file);
      } catch (err) {
        throw failure('delete the file', err);
      }
    },
  };
}

/** Whether a folder lies under one of the allowed roots (checked on create and update, before any write). */
export function isUnderAllowedRoot(path: string, allowedRoots: readonly string[]): boolean {
  return isAbsolute(path) && allowedRoots.some((root) => inside(normalize(root), normalize(path)));
}
