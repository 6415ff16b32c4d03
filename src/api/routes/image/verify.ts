import type { Hono } from 'hono';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.js';
import { IMAGE_ID } from '../../../domain/ids.js';
import type { CredentialsReport as Report } from '../../../domain/provenance.js';
import type { VerifyAsset } from '../../../services/verify-source.js';
import { HttpUrl } from '../../../task-types/request-parts.js';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { dataOf } from '../../common-schemas.js';
import { addRoute } from '../../route.js';

export const VerifyBody = z.object({
  url: HttpUrl.optional().describe(
    "an http(s) URL of an image or video (fetched through the SSRF guard; this server's own service URLs are read from storage)",
  ),
  id: z
    .string()
    .regex(IMAGE_ID, 'an image id (img_…)')
    .optional()
    .describe(
      "an image id (img_…), read from storage: an upload of the caller's account, or an image the service made (an item's id)",
    ),
});
export type VerifyBody = z.infer<typeof VerifyBody>;

/** What reading a file's Content Credentials found (src/domain/provenance.ts, CredentialsReport). */
export const CredentialsReport = z.object({
  present: z.boolean().describe('false: the file carries no C2PA manifest (nothing else is set)'),
  validation: z
    .enum(['Valid', 'Trusted', 'Invalid'])
    .optional()
    .describe(
      'Trusted: intact and signed under a trust anchor of this server; Valid: intact, signer not trusted here; Invalid: altered or badly signed',
    ),
  signer: z
    .object({
      commonName: z.string().optional(),
      organization: z.string().optional(),
      issuer: z.string().optional(),
      time: z.string().optional(),
    })
    .optional(),
  claimGenerator: z.string().optional(),
  actions: z
    .array(
      z.object({ action: z.string(), digitalSourceType: z.string().optional(), softwareAgent: z.string().optional() }),
    )
    .optional(),
  imgtask: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("imgtask's own assertion: task id, model, provider, seed, hashes, rating, review"),
  ingredients: z.array(z.object({ title: z.string().optional(), relationship: z.string().optional() })).optional(),
  failures: z
    .array(z.object({ code: z.string(), explanation: z.string().optional() }))
    .optional()
    .describe('validation failures by C2PA status code'),
}) satisfies z.ZodType<Report>;

export const VerifyResponse = dataOf(CredentialsReport);
export type VerifyResponse = z.infer<typeof VerifyResponse>;

/**
 * Reads and validates the Content Credentials of an image or video (docs/api/images.md#verify-post-imageverify).
 * Free and taskless: it reads only what the caller names, so any API key or access token may
 * verify, whatever its scopes; a PAT is refused as on every create route.
 */
export function registerImageVerify(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'post',
      path: '/image/verify',
      summary: "Read and validate an image's or video's Content Credentials (C2PA): free, no task",
      description:
        'Send exactly one of `url` (an http(s) URL, fetched through the SSRF guard with the fetch.* limits) and `id` (an upload of the account, or an image the service made). ' +
        'Any API key or access token verifies, whatever its scopes; a PAT is refused. ' +
        'A file without credentials answers 200 with `present: false`; a URL that cannot be fetched, or bytes that are no image or video, 400 VALIDATION_ERROR; another account’s or an unknown id, 404 NOT_FOUND.',
      guard: { accept: ['apiKey', 'accessToken'] },
      family: 'image',
      body: VerifyBody,
      status: 200,
      response: VerifyResponse,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'RATE_LIMIT_EXCEEDED'],
    },
    async (_c, { principal, body }) => {
      if ((body.url === undefined) === (body.id === undefined))
        throw new AppError('VALIDATION_ERROR', 'send exactly one of url and id');
      const asset = await deps.verifySource.read(
        principal.accountId,
        body.url !== undefined ? { url: body.url } : { id: body.id! },
      );
      return { body: { data: await reportOf(deps, asset) } };
    },
  );
}

/** The credentials report of bytes already sniffed as an image or video. */
export async function reportOf(deps: Pick<ApiDeps, 'outputSigner'>, asset: VerifyAsset): Promise<Report> {
  try {
    return await deps.outputSigner.verify(asset.data, asset.mimeType);
  } catch (err) {
    // The bytes look like an image or video but the reader cannot parse them: the caller's file, not a fault.
    throw new AppError('VALIDATION_ERROR', `the file cannot be read: ${(err as Error).message}`);
  }
}
