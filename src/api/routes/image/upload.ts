import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { type ReceivedFile, UPLOAD_LIMITS } from '../../../services/uploads.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { RequestCutShortError } from '../../cut-short.js';
import { addRoute } from '../../route.js';

/** One stored upload: use its id (or service_url) wherever an image URL is taken. */
export const UploadedFile = z.object({
  id: z.string(),
  url: z.string(),
  service_url: z.string(),
  format: z.enum(['png', 'jpg', 'webp']),
  size: z.string(),
  bytes: z.number(),
  filename: z.string(),
});
export const UploadResponse = dataOf(z.object({ files: z.array(UploadedFile) }));
export type UploadResponse = z.infer<typeof UploadResponse>;

const tooLarge = () =>
  new AppError('VALIDATION_ERROR', `the upload body is larger than ${UPLOAD_LIMITS.maxBody / 1024 / 1024} MB`, {
    status: 413,
  });

/**
 * Streams a multipart body through busboy: a declared Content-Length past 100 MB is refused
 * before reading; otherwise bytes are counted as they arrive and reading stops at the bound.
 * Files are kept in memory up to 10 MB + 1 byte each (enough to know one is too large).
 */
function receiveFiles(c: Context<ApiEnv>): Promise<ReceivedFile[]> {
  const contentType = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) {
    return Promise.reject(
      new AppError('VALIDATION_ERROR', 'send the files as multipart/form-data in the field "files"'),
    );
  }
  if (Number(c.req.header('content-length') ?? 0) > UPLOAD_LIMITS.maxBody) return Promise.reject(tooLarge());
  const source = c.env?.incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as never) : null);
  if (!source) return Promise.resolve([]);

  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: {
          files: UPLOAD_LIMITS.maxFiles + 1,
          fileSize: UPLOAD_LIMITS.maxBytes + 1,
          fields: 50,
          fieldSize: 4096,
        },
      });
    } catch {
      return reject(new AppError('VALIDATION_ERROR', 'the multipart body has no boundary'));
    }
    const files: ReceivedFile[] = [];
    let received = 0;
    let done = false;
    const stop = (err: Error) => {
      if (done) return;
      done = true;
      source.unpipe(parser);
      source.resume(); // drain what the client still sends, so it reads our answer
      reject(err);
    };
    source.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > UPLOAD_LIMITS.maxBody) stop(tooLarge());
    });
    parser.on('file', (field, stream, info) => {
      if (field !== 'files') {
        stream.resume();
        return stop(new AppError('VALIDATION_ERROR', `unexpected file field "${field}"; use "files"`));
      }
      const chunks: Buffer[] = [];
      const file: ReceivedFile = { filename: info.filename ?? '', data: Buffer.alloc(0), truncated: false };
      files.push(file);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (file.truncated = true));
      stream.on('close', () => (file.data = Buffer.concat(chunks)));
    });
    parser.on('filesLimit', () =>
      stop(new AppError('VALIDATION_ERROR', `at most ${UPLOAD_LIMITS.maxFiles} files per upload`)),
    );
    parser.on('error', () => stop(new AppError('VALIDATION_ERROR', 'the multipart body is malformed')));
    parser.on('close', () => {
      if (done) return;
      done = true;
      resolve(files);
    });
    // A client that leaves mid-body (or runs past server.requestTimeout) ends the source without
    // its 'end': busboy, never ended, would wait for the rest forever. The error handler answers
    // such a request as cut short (499 or 408), from the state of the connection.
    const cutShort = () => {
      if (!source.readableEnded) stop(new RequestCutShortError());
    };
    if (source.destroyed) return cutShort(); // gone before the route got to it: its 'close' has passed
    source.once('error', cutShort);
    source.once('close', cutShort);
    source.pipe(parser);
  });
}

export function registerImageUpload(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/upload',
      summary: 'Upload 1 to 10 images (multipart field "files"); answers their ids and service URLs',
      guard: { accept: ['apiKey'], scope: 'image:upload' },
      family: 'image',
      status: 201,
      response: UploadResponse,
      errors: ['VALIDATION_ERROR'],
    },
    async (c, { principal }) => {
      const files = await receiveFiles(c);
      const stored = await deps.uploads.store(
        { accountId: principal.accountId, apiKeyId: principal.kind === 'apiKey' ? principal.keyId : null },
        files,
      );
      return { body: { data: { files: stored } } };
    },
  );
}
