import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import sharp from 'sharp';

/**
 * A test image: a solid colour with deterministic noise (so it is not tiny once encoded).
 * `rgb` sets the colour; bright colours rate "sfw" with the fake rater, dark ones "nsfw".
 */
export async function makeImage(
  options: {
    width?: number;
    height?: number;
    format?: 'png' | 'jpeg' | 'webp' | 'gif';
    rgb?: [number, number, number];
  } = {},
): Promise<Buffer> {
  const { width = 64, height = 64, format = 'png', rgb = [200, 200, 200] } = options;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let i = 0; i < raw.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = Math.max(0, Math.min(255, rgb[i % 3] + ((seed >> 16) % 31) - 15));
  }
  const image = sharp(raw, { raw: { width, height, channels: 3 } });
  return (
    format === 'png'
      ? image.png()
      : format === 'jpeg'
        ? image.jpeg()
        : format === 'webp'
          ? image.webp({ lossless: true })
          : image.gif()
  ).toBuffer();
}

/** A PNG of random pixels: incompressible, so its size is about width × height × 3 bytes. */
export async function makeNoisePng(width: number, height: number): Promise<Buffer> {
  const { randomBytes } = await import('node:crypto');
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** Serves fixed bodies on loopback: `url(path)` gives each one's URL. */
export async function serveFiles(
  t: TestContext,
  files: Record<string, Buffer | string>,
): Promise<(path: string) => string> {
  const server = createServer((req, res) => {
    const body = files[req.url ?? ''];
    if (body === undefined) {
      res.statusCode = 404;
      return res.end();
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return (path) => `${base}${path}`;
}
