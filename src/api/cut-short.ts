import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { ApiEnv } from './api-deps.js';

/** A body that stopped before its end: the client closed the connection, or ran past server.requestTimeout. */
export class RequestCutShortError extends Error {
  constructor() {
    super('the request body ended before its last byte arrived');
  }
}

/**
 * The status of a request whose body never fully arrived, or null when it arrived (or when
 * there is no Node request: the app called directly). 408 when it ran past
 * `server.requestTimeout` (Node has then answered 408 itself and closed the connection); 499,
 * nginx's "client closed request", when the client closed the connection first. Either way
 * the client caused it and no answer can reach it: neither is a server fault.
 */
export function cutShortStatus(incoming: IncomingMessage | undefined): 408 | 499 | null {
  if (!incoming || incoming.complete || !incoming.destroyed) return null;
  const reason = incoming.socket?.errored as NodeJS.ErrnoException | null | undefined;
  return reason?.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 499;
}

/**
 * Throws when the body just read is not the whole body. A body stream over a request already
 * cut short when its reading began ends as if the body were complete (empty, or the bytes that
 * came), so whatever was read is checked against the request's own state before it is used.
 */
export function assertBodyArrived(c: Context<ApiEnv>): void {
  if (cutShortStatus(c.env?.incoming) !== null) throw new RequestCutShortError();
}
