import { request } from 'node:http';

/** Calls the running server's admin socket (operator data for the dashboard). */
export function createAdminClient(socketPath: string) {
  return {
    call<T>(op: string, args: unknown = {}): Promise<T> {
      const payload = JSON.stringify(args);
      return new Promise((resolve, reject) => {
        const req = request({ socketPath, method: 'POST', path: `/admin/${op}`, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            try {
              const body = JSON.parse(text) as { data?: T; message?: string };
              if (res.statusCode === 200) resolve(body.data as T);
              else reject(new Error(body.message ?? `admin ${op} answered ${res.statusCode}`));
            } catch {
              reject(new Error(`admin ${op} answered ${res.statusCode} without JSON`));
            }
          });
        });
        req.on('error', reject);
        req.end(payload);
      });
    },
  };
}
