import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { MalformedJsonError, parseRequestJson } from '../api/json-depth.js';
import { AppError, isAppError } from '../domain/errors.js';
import type { AdminDeps } from './admin/admin-deps.js';
import { isAdminOp, runAdminOp } from './admin/ops.js';

/**
 * The running server's local admin endpoint: HTTP over a Unix socket in the data dir,
 * mode 0600 inside a 0700 folder, so only the operator's user can reach it. CLI admin
 * commands use it while `serve` holds the store's lock.
 */
export async function listenAdminSocket(
  services: AdminDeps,
  path: string,
  log: (message: string) => void,
): Promise<{ close(): Promise<void> }> {
  const app = new Hono();
  app.post('/admin/:op', async (c) => {
    const op = c.req.param('op');
    if (!isAdminOp(op)) return c.json({ code: 'NOT_FOUND', message: `no admin operation ${op}` }, 404);
    const text = await c.req.text();
    let args: unknown = {};
    if (text.trim() !== '') {
      try {
        args = parseRequestJson(text);
      } catch (err) {
        if (!(err instanceof MalformedJsonError)) throw err;
        throw new AppError('VALIDATION_ERROR', err.message);
      }
    }
    return c.json({ data: await runAdminOp(services, op, args) });
  });
  app.onError((err, c) => {
    // The operator's own channel: codes the API answers without a message (docs/api/errors.md) keep it here.
    if (isAppError(err)) return c.json({ ...err.toBody(), message: err.message }, err.status as 400);
    log(`admin: ${err.stack ?? err.message}`);
    return c.json({ code: 'INTERNAL_SERVER_ERROR', message: err.message }, 500);
  });
  await unlink(path).catch(() => undefined); // left by a crashed server; we hold the lock now
  const server: Server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => unlink(path).catch(() => undefined)),
  };
}
