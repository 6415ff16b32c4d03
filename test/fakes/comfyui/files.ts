// POST /upload/image and GET /view, as server.py answers them.
import type { IncomingMessage } from 'node:http';
import { posix } from 'node:path';
import busboy from 'busboy';
import sharp from 'sharp';
import { annotated, type Folders, inside, isFolderType } from './folders.js';

export interface Answer {
  status: number;
  json?: unknown;
  body?: Buffer;
  headers?: Record<string, string>;
}

/** What a multipart request carried, for the request log. */
export interface Multipart {
  fields: Record<string, string>;
  files: { field: string; filename: string; bytes: Buffer }[];
}

export async function readMultipart(req: IncomingMessage): Promise<Multipart | null> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers });
  } catch {
    // Not a form: aiohttp's request.post() finds no fields.
    req.resume();
    return null;
  }
  const form: Multipart = { fields: {}, files: [] };
  parser.on('field', (name, value) => (form.fields[name] = value));
  parser.on('file', (field, stream, info) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('close', () => form.files.push({ field, filename: info.filename ?? '', bytes: Buffer.concat(chunks) }));
  });
  await new Promise<void>((resolve) => {
    parser.on('close', resolve);
    parser.on('error', resolve);
    req.pipe(parser);
  });
  return form;
}

/**
 * image_upload: stores the `image` file in the `type` folder (input by default) under `subfolder`.
 * A name already taken gets " (1)", " (2)"… unless `overwrite` is "true" or "1", or the bytes are the
 * same (the existing name is answered).
 */
export function upload(form: Multipart | null, folders: Folders): Answer {
  const image = form?.files.find((file) => file.field === 'image');
  if (!form || !image?.filename) return { status: 400 };
  const type = form.fields.type ?? 'input';
  // server.py's get_dir_by_type leaves its directory unset for another type: a 500.
  if (!isFolderType(type)) return { status: 500 };
  const subfolder = form.fields.subfolder ?? '';
  let name = image.filename;
  let path = inside(subfolder, name);
  if (path === null) return { status: 400 };
  const overwrite = form.fields.overwrite === 'true' || form.fields.overwrite === '1';
  const ext = posix.extname(image.filename);
  const stem = image.filename.slice(0, image.filename.length - ext.length);
  let duplicate = false;
  for (let i = 1; !overwrite && path !== null; i++) {
    const existing = folders.get(type, path);
    if (!existing) break;
    if (existing.equals(image.bytes)) {
      duplicate = true;
      break;
    }
    name = `${stem} (${i})${ext}`;
    path = inside(subfolder, name);
  }
  if (path === null) return { status: 400 };
  if (!duplicate) folders.put(type, path, image.bytes);
  return { status: 200, json: { name, subfolder, type } };
}

const MIME: Record<string, string> = {
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webm': 'video/webm',
  '.mp4': 'video/mp4',
};

/** view_image: a file of the output (default), input or temp folder; `preview=webp|jpeg[;quality]` re-encodes it. */
export async function view(query: URLSearchParams, folders: Folders): Promise<Answer> {
  const requested = query.get('filename');
  if (requested === null) return { status: 404 };
  const { name, type: annotatedType } = annotated(requested);
  if (!name || name.startsWith('/') || name.includes('..')) return { status: 400 };
  const type = annotatedType ?? query.get('type') ?? 'output';
  if (!isFolderType(type)) return { status: 400 };
  const subfolder = query.get('subfolder') ?? '';
  if (inside(subfolder, '.') === null) return { status: 403 };
  const filename = posix.basename(name);
  const bytes = folders.get(type, inside(subfolder, filename)!);
  if (!bytes) return { status: 404 };
  const preview = query.get('preview');
  if (preview !== null) {
    const parts = preview.split(';');
    const format = parts[0] === 'jpeg' && !(query.get('channel') ?? '').includes('a') ? 'jpeg' : 'webp';
    const quality = /^\d+$/.test(parts.at(-1)!) ? Number(parts.at(-1)) : 90;
    const body = await sharp(bytes)[format]({ quality }).toBuffer();
    return {
      status: 200,
      body,
      headers: { 'content-type': `image/${format}`, 'content-disposition': `filename="${filename}"` },
    };
  }
  const contentType = MIME[posix.extname(filename).toLowerCase()] ?? 'application/octet-stream';
  return {
    status: 200,
    body: bytes,
    headers: { 'content-type': contentType, 'content-disposition': `filename="${filename}"` },
  };
}
