import type { Hono } from 'hono';
import { AppError } from '../../../domain/errors.js';
import { assetOf } from '../../../services/verify-source.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { readStreamBounded } from '../../body.js';
import { assertBodyArrived } from '../../cut-short.js';
import { addRoute } from '../../route.js';
import { reportOf, VerifyResponse } from './verify.js';

/**
 * Verifies the file sent as the body itself (`imgtask verify FILE`): the same report as POST
 * /image/verify, read with this server's trust anchors; nothing is stored. At most fetch.maxBytes,
 * as a fetched URL.
 */
export function registerImageVerifyFile(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/verify/file',
      summary:
        'Read and validate the Content Credentials of the file sent as the body (its bytes, any Content-Type): free, nothing stored',
      description:
        'The body is the image or video itself (PNG, JPEG, WebP, GIF or MP4, sniffed from its bytes), at most fetch.maxBytes (413 VALIDATION_ERROR past it). ' +
        'The answer is that of POST /image/verify. Any API key or access token, whatever its scopes; a PAT is refused.',
      guard: { accept: ['apiKey', 'accessToken'] },
      family: 'image',
      status: 200,
      response: VerifyResponse,
      errors: ['VALIDATION_ERROR', 'RATE_LIMIT_EXCEEDED'],
    },
    async (c) => {
      const limit = deps.config.current().fetch.maxBytes;
      const tooLarge = () =>
        new AppError('VALIDATION_ERROR', `the file is larger than ${limit} bytes (fetch.maxBytes)`, { status: 413 });
      if (Number(c.req.header('content-length') ?? 0) > limit) throw tooLarge();
      const data = c.req.raw.body ? await readStreamBounded(c.req.raw.body, limit, tooLarge) : Buffer.alloc(0);
      assertBodyArrived(c);
      if (data.length === 0) throw new AppError('VALIDATION_ERROR', 'send the image or video as the request body');
      return { body: { data: await reportOf(deps, assetOf(data)) } };
    },
  );
}
