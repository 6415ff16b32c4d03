import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { IMAGE_MIME } from '../../../domain/media-types.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addRoute } from '../../route.js';

const ImageRequestHeaders = z.object({
  'if-none-match': z
    .string()
    .optional()
    .describe('the ETag of a copy held; when it matches, the answer is 304 with no body'),
});

/**
 * The service's own image URLs (`service_url`). Public: the id is 131 random bits, so the URL
 * is the capability, as with signed storage URLs. Content never changes under a URL, but an
 * image can be deleted (its task or upload deleted, retention): it is cached for
 * images.cacheMaxAgeSeconds, not as immutable, and a deleted one answers 404.
 */
export function registerImageFile(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'get',
      path: '/images/:file',
      summary:
        'A stored image, by its service URL ({id}.{ext}); cached for images.cacheMaxAgeSeconds, with its ETag; 404 once deleted',
      family: 'resource',
      status: 200,
      produces: 'image/*',
      errors: ['NOT_FOUND'],
      headers: ImageRequestHeaders,
      also: [
        {
          status: 304,
          description: 'Not modified: If-None-Match matched the ETag of this image (no body)',
          headers: { ETag: 'the image id, quoted', 'Cache-Control': 'public, max-age=<images.cacheMaxAgeSeconds>' },
        },
      ],
    },
    async (c) => {
      const file = c.req.param('file')!;
      const etag = `"${file}"`;
      const headers = {
        'content-type': IMAGE_MIME[file.split('.').pop()!],
        'cache-control': `public, max-age=${deps.config.current().images.cacheMaxAgeSeconds}`,
        etag,
        'x-content-type-options': 'nosniff',
      };
      // A 304 or a HEAD needs only the image's size; a 200 opens it (one request to a bucket either way).
      const notModified = c.req.header('if-none-match') === etag;
      if (notModified || c.req.method === 'HEAD') {
        const info = await deps.images.stat(file);
        if (!info) throw new AppError('NOT_FOUND', 'no such image');
        return notModified
          ? new Response(null, { status: 304, headers })
          : new Response(null, { status: 200, headers: { ...headers, 'content-length': String(info.size) } });
      }
      const opened = await deps.images.open(file);
      if (!opened) throw new AppError('NOT_FOUND', 'no such image');
      return new Response(Readable.toWeb(opened.stream) as ReadableStream, {
        status: 200,
        headers: { ...headers, 'content-length': String(opened.size) },
      });
    },
  );
}
