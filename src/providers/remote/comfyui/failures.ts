import { ProviderError } from '../../../domain/task-status.js';

/**
 * The server could not be reached: a connection refused, reset or cut off, or a gateway in front
 * of it with no server behind (502, 503, 504). `reason` is what failed (ECONNREFUSED, HTTP 503),
 * for the log and for the item's error once waiting for the server runs out.
 */
export class ServerUnreachable extends ProviderError {
  constructor(
    message: string,
    readonly reason: string,
    options: { retryable?: boolean } = {},
  ) {
    super('PROVIDER_ERROR', message, options);
  }
}

export const unreachable = (server: string, reason: string): ServerUnreachable =>
  new ServerUnreachable(`${server} cannot be reached (${reason})`, reason);

/**
 * The server answers but no longer knows a job it took: it restarted, and a restart empties ComfyUI's queue and
 * history.
 */
export class JobForgotten extends ProviderError {
  constructor(server: string) {
    super('PROVIDER_ERROR', `${server} no longer knows the job (restarted?)`);
  }
}
