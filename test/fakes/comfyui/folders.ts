// ComfyUI's input, output and temp directories, kept in memory: what /upload/image writes, what the
// save nodes write, what LoadImage and /view read. Paths are relative to their folder, "/"-separated.
import { posix } from 'node:path';

export type FolderType = 'input' | 'output' | 'temp';

const FOLDER_TYPES = new Set<string>(['input', 'output', 'temp']);

export const isFolderType = (value: string): value is FolderType => FOLDER_TYPES.has(value);

/**
 * folder_paths.annotated_filepath: "name.png [output]" names a file of that folder; a plain name
 * has no folder of its own (null: the caller's default).
 */
export function annotated(name: string): { name: string; type: FolderType | null } {
  const match = /^(.*) \[(input|output|temp)\]$/.exec(name);
  return match ? { name: match[1], type: match[2] as FolderType } : { name, type: null };
}

/** `subfolder/name` normalised, or null when it leaves its folder (ComfyUI's commonpath check). */
export function inside(subfolder: string, name: string): string | null {
  const path = posix.normalize(posix.join(subfolder || '.', name));
  return path.startsWith('../') || path === '..' || posix.isAbsolute(path) ? null : path;
}

export class Folders {
  private readonly files = new Map<string, Buffer>();
  /** The last counter SaveImage used per folder path and prefix. */
  private readonly counters = new Map<string, number>();

  get(type: FolderType, path: string): Buffer | undefined {
    return this.files.get(`${type}:${path}`);
  }

  put(type: FolderType, path: string, bytes: Buffer): void {
    this.files.set(`${type}:${path}`, bytes);
  }

  /** The files at the top of a folder (LoadImage's combo lists those of the input folder). */
  list(type: FolderType): string[] {
    const prefix = `${type}:`;
    return [...this.files.keys()]
      .filter((key) => key.startsWith(prefix) && !key.includes('/', prefix.length))
      .map((key) => key.slice(prefix.length))
      .sort();
  }

  /**
   * The file an (annotated) input name stands for: folder_paths.get_annotated_filepath, what LoadImage reads and
   * checks.
   */
  annotatedFile(name: string): Buffer | undefined {
    const { name: path, type } = annotated(name);
    return this.files.get(`${type ?? 'input'}:${posix.normalize(path)}`);
  }

  /**
   * folder_paths.get_save_image_path: the subfolder and base name a filename_prefix stands for, and
   * the next counter (one past the highest used), as in "ComfyUI_00001_.png".
   */
  savePath(type: FolderType, prefix: string): { subfolder: string; base: string; next: () => number } {
    const subfolder = posix.dirname(prefix) === '.' ? '' : posix.dirname(prefix);
    const base = posix.basename(prefix);
    const key = `${type}:${subfolder}/${base}`;
    return {
      subfolder,
      base,
      next: () => {
        const counter = (this.counters.get(key) ?? 0) + 1;
        this.counters.set(key, counter);
        return counter;
      },
    };
  }
}
