import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { VIDEO_MIME } from '../../../domain/media-types.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute } from '../../route.js';

const VideoRequestHeaders = z.object({
  range: z
    .string()
    .optional()
    .describe(
      'one byte range (`bytes=a-b`, `bytes=a-`, `bytes=-n`): the answer is 206 with that slice; several ranges or another unit are ignored (200, whole file)',
    ),
  'if-range': z
    .string()
    .optional()
    .describe(
      'the ETag of a copy held: the Range is honoured only when it matches, otherwise the answer is the whole file',
    ),
  'if-none-match': z
    .string()
    .optional()
    .describe('the ETag of a copy held; when it matches, the answer is 304 with no body'),
});

/** A satisfiable slice, inclusive; `unsatisfiable` for 416; null when the header is ignored (whole file). */
type RangeAnswer = { start: number; end: number } | 'unsatisfiable' | null;

/**
 * Reads a Range header (RFC 9110 §14.1.2) against a file of `size` bytes. Only one byte range is
 * served: a header naming several ranges, a unit other than bytes, or a malformed one is
 * ignored, and the whole file is answered with 200, which §14.2 allows ("a server MAY ignore the
 * Range header field"). A last position past the end is clamped to it.
 */
function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    // A suffix range: the last n bytes (the whole file when n ≥ size); -0 selects nothing.
    const n = Number(last);
    if (!Number.isSafeInteger(n)) return null;
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return null;
  // bytes=5-2 is invalid syntax (§14.1.1): ignored like any malformed header.
  if (last !== '' && end < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}

/**
 * The service's own video URLs (`service_url`), modelled on `/images/:file`: public (the id is
 * the capability), cached for images.cacheMaxAgeSeconds (not as immutable: a deleted video
 * answers 404), with an ETag; and, because players seek, byte ranges.
 * A HEAD request reaches this handler too (hono dispatches HEAD to the GET route and drops
 * the body), so no file is opened for it.
 */
export function registerVideoFile(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/videos/:file',
      summary:
        'A stored video, by its service URL ({id}.{ext}): video/mp4, or image/webp for an animated WebP; byte ranges for seeking; cached for images.cacheMaxAgeSeconds, with its ETag; 404 once deleted',
      family: 'resource',
      status: 200,
      produces: 'video/mp4',
      errors: ['NOT_FOUND'],
      headers: VideoRequestHeaders,
      also: [
        {
          status: 206,
          description: 'Partial content: the one byte range asked for',
          headers: {
            'Content-Range': 'bytes {first}-{last}/{size}',
            'Accept-Ranges': 'bytes',
            ETag: 'the video id, quoted',
          },
        },
        {
          status: 304,
          description: 'Not modified: If-None-Match matched the ETag of this video (no body)',
          headers: { ETag: 'the video id, quoted', 'Cache-Control': 'public, max-age=<images.cacheMaxAgeSeconds>' },
        },
        {
          status: 416,
          description: 'Range not satisfiable: the range starts at or past the end of the file (no body)',
          headers: { 'Content-Range': 'bytes */{size}', 'Accept-Ranges': 'bytes' },
        },
      ],
    },
    async (c) => {
      const file = c.req.param('file')!;
      const info = await deps.videos.stat(file);
      if (!info) throw new AppError('NOT_FOUND', 'no such video');
      const size = info.size;
      const etag = `"${file}"`;
      const headers: Record<string, string> = {
        'content-type': VIDEO_MIME[file.split('.').pop()!],
        'cache-control': `public, max-age=${deps.config.current().images.cacheMaxAgeSeconds}`,
        etag,
        'accept-ranges': 'bytes',
        'x-content-type-options': 'nosniff',
      };
      if (c.req.header('if-none-match') === etag) return new Response(null, { status: 304, headers });
      const ifRange = c.req.header('if-range');
      // If-Range with anything but the current ETag (another ETag, a date): the whole file.
      const range = ifRange === undefined || ifRange === etag ? parseRange(c.req.header('range'), size) : null;
      const head = c.req.method === 'HEAD';
      if (range === 'unsatisfiable')
        return new Response(null, { status: 416, headers: { ...headers, 'content-range': `bytes */${size}` } });
      /** The bytes to answer with; null for HEAD. A file gone between stat and open is 404. */
      const bodyOf = async (slice?: { start: number; end: number }) => {
        if (head) return null;
        const opened = await deps.videos.open(file, slice);
        if (!opened) throw new AppError('NOT_FOUND', 'no such video');
        return Readable.toWeb(opened.stream) as ReadableStream;
      };
      if (range) {
        const partial = {
          ...headers,
          'content-range': `bytes ${range.start}-${range.end}/${size}`,
          'content-length': String(range.end - range.start + 1),
        };
        return new Response(await bodyOf(range), { status: 206, headers: partial });
      }
      return new Response(await bodyOf(), { status: 200, headers: { ...headers, 'content-length': String(size) } });
    },
  );
}
