import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DataDirLayout {
  root: string;
  store: string;
  signingKey: string;
  adminSocket: string;
}

export const dataDirLayout = (root: string): DataDirLayout => ({
  root,
  store: join(root, 'store'),
  signingKey: join(root, 'keys', 'token-signing.key'),
  adminSocket: join(root, 'admin.sock'),
});

/**
 * Creates the data dir (0700) and the token signing key (32 random bytes, 0600) on first
 * use. Returns the key and whether this was the first start.
 */
export async function prepareDataDir(root: string): Promise<{ layout: DataDirLayout; signingKey: Uint8Array; created: boolean }> {
  const layout = dataDirLayout(root);
  const created = !(await stat(layout.store).catch(() => null));
  await mkdir(root, { recursive: true, mode: 0o700 });
  await mkdir(join(root, 'keys'), { recursive: true, mode: 0o700 });
  let encoded: string;
  try {
    encoded = (await readFile(layout.signingKey, 'utf8')).trim();
  } catch {
    encoded = randomBytes(32).toString('base64url');
    // 'wx' so two first starts racing cannot both write a different key.
    await writeFile(layout.signingKey, `${encoded}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
      encoded = (await readFile(layout.signingKey, 'utf8')).trim();
    });
  }
  await chmod(layout.signingKey, 0o600);
  const signingKey = Buffer.from(encoded, 'base64url');
  if (signingKey.length < 32) throw new Error(`${layout.signingKey} holds a key shorter than 32 bytes`);
  return { layout, signingKey: new Uint8Array(signingKey), created };
}
