import { request } from 'node:http';
import { AppError, type ErrorCode } from '../domain/errors.js';

/**
 * Calls an operator action on a running server through its admin socket (HTTP over the Unix
 * socket in the data dir). A refusal comes back as an AppError with the server's code, so the
 * caller handles it exactly as if the action had run in-process.
 */
export function callAdminSocket<T>(socketPath: string, op: string, args: unknown = {}): Promise<T> {
  const payload = JSON.stringify(args ?? {});
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method: 'POST',
        path: `/admin/${op}`,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let body: { data?: T; code?: string; message?: string };
          try {
            body = JSON.parse(text);
          } catch {
            return reject(new Error(`the admin socket answered ${res.statusCode} with no JSON`));
          }
          if (res.statusCode === 200) return resolve(body.data as T);
          reject(
            new AppError(
              (body.code ?? 'INTERNAL_SERVER_ERROR') as ErrorCode,
              body.message ?? body.code ?? 'the operator action failed',
            ),
          );
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
