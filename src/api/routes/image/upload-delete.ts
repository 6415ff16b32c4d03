import type { Hono } from 'hono';
import type { z } from 'zod';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { Deleted, dataOf } from '../../common-schemas.js';
import { addRoute } from '../../route.js';

export const DeleteUploadResponse = dataOf(Deleted);
export type DeleteUploadResponse = z.infer<typeof DeleteUploadResponse>;

export function registerImageUploadDelete(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addRoute(
    app,
    deps,
    {
      method: 'delete',
      path: '/image/upload/:id',
      summary: 'Delete an uploaded image (its id, img_…) of the account: its URL then answers 404',
      description:
        'Takes an API key with image:upload, or the owner’s access token. Another account’s upload and an unknown id answer 404 NOT_FOUND. ' +
        'Idempotent: again on a deleted upload, the same 200 (a record of the deletion is kept, with no image bytes). Tasks that named the image keep their request until they are deleted themselves.',
      guard: { accept: ['apiKey', 'accessToken'], scope: 'image:upload' },
      family: 'resource',
      status: 200,
      response: DeleteUploadResponse,
      errors: ['NOT_FOUND'],
    },
    async (c) => {
      const upload = await deps.dataRemoval.removeUpload(c.get('principal').accountId, c.req.param('id')!);
      return { body: { data: { id: upload.id, deleted: true as const } } };
    },
  );
}
