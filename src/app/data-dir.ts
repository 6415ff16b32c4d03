import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DataDirLayout {
  root: string;
  store: string;
  signingKey: string;
  secretsKey: string;
  adminSocket: string;
  /**
   * Always open to `local` destinations, beside `destinations.local.allowedRoots`: a place that works with no config.
   */
  exports: string;
}

export const dataDirLayout = (root: string): DataDirLayout => ({
  root,
  store: join(root, 'store'),
  signingKey: join(root, 'keys', 'token-signing.key'),
  secretsKey: join(root, 'keys', 'secrets.key'),
  adminSocket: join(root, 'admin.sock'),
  exports: join(root, 'exports'),
});

/**
 * Whether `root` is a data dir already: one that holds its keys or a file store (the first use
 * makes both). A missing path answers false; anything else in the way (a file where a folder
 * should be, a folder this user may not enter) is thrown for the caller to explain.
 */
export async function isDataDir(root: string): Promise<boolean> {
  for (const inside of [join(root, 'keys'), join(root, 'store')]) {
    try {
      await stat(inside);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return false;
}

/**
 * Creates the data dir (0700) and its keys on first use: the token signing key and the
 * secrets key (32 random bytes each, 0600). Returns them and whether this was the first start.
 */
export async function prepareDataDir(
  root: string,
): Promise<{ layout: DataDirLayout; signingKey: Uint8Array; secretsKey: Uint8Array; created: boolean }> {
  const layout = dataDirLayout(root);
  const created = !(await stat(layout.store).catch(() => null));
  await mkdir(root, { recursive: true, mode: 0o700 });
  await mkdir(join(root, 'keys'), { recursive: true, mode: 0o700 });
  return {
    layout,
    signingKey: await keyFile(layout.signingKey),
    secretsKey: await keyFile(layout.secretsKey),
    created,
  };
}

/** Reads a 32-byte key file, creating it (random, 0600) on first use. */
async function keyFile(path: string): Promise<Uint8Array> {
  let encoded: string;
  try {
    encoded = (await readFile(path, 'utf8')).trim();
  } catch {
    encoded = randomBytes(32).toString('base64url');
    // 'wx' so two first starts racing cannot both write a different key.
    await writeFile(path, `${encoded}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
      encoded = (await readFile(path, 'utf8')).trim();
    });
  }
  await chmod(path, 0o600);
  const key = Buffer.from(encoded, 'base64url');
  if (key.length < 32) throw new Error(`${path} holds a key shorter than 32 bytes`);
  return new Uint8Array(key.subarray(0, 32));
}
