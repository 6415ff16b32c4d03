import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import sharp from 'sharp';
import { randomId } from '../../../src/domain/ids.js';
import type { ImageLibrary } from '../../../src/services/image-library.js';
import { createUploadService } from '../../../src/services/uploads.js';
import { JsonStore } from '../../../src/store/file/json-store.js';
import type { UploadRecord } from '../../../src/store/records.js';
import { tempDir } from '../../helpers/temp-dir.js';

const clock = { now: () => Date.parse('2026-11-29T12:00:00.000Z') };

test('an upload whose account began to be erased while it was stored is removed again and refused', async (t) => {
  const store = await JsonStore.open({ dir: await tempDir(t) });
  t.after(() => store.close());
  await store.accounts.create({
    id: 'acc_1',
    name: 'acme',
    balance: 0,
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
  });
  // Random pixels: a PNG that does not compress below the 1 KB an upload needs.
  const pixels = randomBytes(64 * 64 * 3);
  const png = await sharp(pixels, { raw: { width: 64, height: 64, channels: 3 } })
    .png()
    .toBuffer();
  const saved: string[] = [];
  const images = {
    admitUpload: async () => {},
    async saveAsIs(data: Buffer, format: 'png', width: number, height: number) {
      // The erase starts while the body is being stored: after the credential was checked.
      await store.accounts.update('acc_1', { erasingSince: '2026-11-29T12:00:00.000Z' }, '2026-11-29T12:00:00.000Z');
      const id = randomId('img');
      saved.push(id);
      return {
        id,
        fileName: `${id}.${format}`,
        format,
        width,
        height,
        bytes: data.length,
        serviceUrl: `http://x/images/${id}.${format}`,
        data,
      };
    },
  } as unknown as ImageLibrary;
  const discarded: UploadRecord[] = [];
  const uploads = createUploadService({
    images,
    store,
    clock,
    maxPixels: () => 1e8,
    discard: async (upload) => {
      discarded.push(upload);
      await store.uploads.delete(upload.id);
    },
  });
  await assert.rejects(
    uploads.store({ accountId: 'acc_1', apiKeyId: null }, [{ filename: 'a.png', data: png, truncated: false }]),
    { code: 'UNAUTHORIZED' },
  );
  assert.deepEqual(
    discarded.map((upload) => upload.id),
    saved,
  );
  assert.equal(await store.uploads.get(saved[0]), undefined, 'no record of the erased account stays');
});
