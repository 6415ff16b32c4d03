import { mkdir, open, realpath, rename } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import type { StorageDriver } from './types.js';
import { StorageError } from './types.js';

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Writes objects under a folder on this server. The folder must lie under one of the
 * operator's allowed roots, and every write is checked again after resolving symlinks, so
 * neither `..` in a key nor a symlink planted in the tree can escape.
 */
export function createLocalFolder(options: { path: string; publicBaseUrl?: string; allowedRoots: readonly string[] }): StorageDriver {
  return {
    async put(object) {
      const base = normalize(options.path);
      const target = normalize(join(base, object.key));
      if (!inside(base, target) || target === base) throw new StorageError(`the key ${object.key} leaves the destination folder`);
      const roots = await Promise.all(options.allowedRoots.map((root) => realpath(root).catch(() => null)));
      try {
        await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      } catch (err) {
        throw new StorageError(`cannot create the folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const realDir = await realpath(dirname(target));
      const realBase = await realpath(base);
      if (!inside(realBase, realDir) || !roots.some((root) => root !== null && inside(root, realDir))) {
        throw new StorageError('the destination folder resolves outside the allowed roots (a symlink?)');
      }
      const file = join(realDir, target.split(sep).pop()!);
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
        throw new StorageError(`cannot write the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      return { url: options.publicBaseUrl ? `${options.publicBaseUrl.replace(/\/+$/, '')}/${object.key.split('/').map(encodeURIComponent).join('/')}` : null };
    },
  };
}

/** Whether a folder lies under one of the allowed roots (checked on create and update, before any write). */
export function isUnderAllowedRoot(path: string, allowedRoots: readonly string[]): boolean {
  return isAbsolute(path) && allowedRoots.some((root) => inside(normalize(root), normalize(path)));
}
