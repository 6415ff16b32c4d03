import { basename } from 'node:path';
import type { Client } from '../client/http-client.js';

/** The name --out gives a saved image: the last part of its service URL, `<image id>.<ext>`. */
const SAVED_IMAGE = /^(img_[0-9A-Za-z]{22})\.(?:png|jpe?g|webp)$/;

/**
 * The stored image a local file is, when --out saved it from this server: it is named
 * `<image id>.<ext>`, and the server still serves the same bytes under that name. Null otherwise
 * (another server's, edited since, or deleted there): the file is then uploaded as a new image.
 * So `imgtask review ./out/img_….webp` reviews the generated image itself, and the console shows
 * the verdict on it, not on a copy.
 */
export async function savedImageId(client: Client, file: string, data: Buffer): Promise<string | null> {
  const name = basename(file);
  const id = SAVED_IMAGE.exec(name)?.[1];
  if (!id) return null;
  const stored = await client.download(`${client.base}/images/${name}`).catch(() => null);
  return stored?.equals(data) ? id : null;
}
