import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import pg from 'pg';
import type { ApiEnv } from '../../../src/api/api-deps.js';
import { createErrorHandler } from '../../../src/api/error-handler.js';
import { AppError } from '../../../src/domain/errors.js';
import { isOutOfSpace, storageFull } from '../../../src/domain/storage-full.js';

/** PostgreSQL's answer to a write on a full disk, as pg hands it over (SQLSTATE 53100, disk_full). */
function diskFull(): Error {
  const err = new pg.DatabaseError('could not extend file "base/16384/16385": No space left on device', 0, 'error');
  err.code = '53100';
  err.severity = 'ERROR';
  return err;
}

const errno = (code: string) =>
  Object.assign(new Error(`${code}: no space left on device, write`), { code, errno: -28, syscall: 'write' });

test('a lack of space is recognised whatever layer names it: ENOSPC, EDQUOT, PostgreSQL disk_full, STORAGE_FULL', () => {
  for (const err of [errno('ENOSPC'), errno('EDQUOT'), diskFull(), storageFull()])
    assert.equal(isOutOfSpace(err), true, String(err));
  for (const err of [
    errno('EIO'),
    errno('EACCES'),
    new AppError('NOT_READY'),
    Object.assign(new Error('unique'), { code: '23505' }),
    null,
    undefined,
    'ENOSPC',
  ]) {
    assert.equal(isOutOfSpace(err), false, String(err));
  }
});

test('a write refused for lack of space reaching the error handler raw answers 507 STORAGE_FULL with Retry-After, not a 500', async (t) => {
  const app = new Hono<ApiEnv>();
  const thrown: Record<string, () => Error> = {
    postgres: diskFull,
    enospc: () => errno('ENOSPC'),
    edquot: () => errno('EDQUOT'),
  };
  app.post('/write/:kind', (c) => {
    throw thrown[c.req.param('kind')]();
  });
  app.onError(createErrorHandler());
  for (const kind of Object.keys(thrown)) {
    await t.test(kind, async () => {
      const res = await app.request(`/write/${kind}`, { method: 'POST' });
      assert.equal(res.status, 507);
      assert.ok(Number(res.headers.get('retry-after')) > 0);
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(body.code, 'STORAGE_FULL');
      assert.doesNotMatch(body.message, /base\/16384|extend file|ENOSPC/, 'no internals in the message');
    });
  }
});
