/**
 * Whose resource a call acts on: an account id (API routes: only that account's), or null for
 * the operator (CLI, admin socket), who may act on any account's. Either way an unknown id is
 * the resource's own *_NOT_FOUND.
 */
export type Owner = string | null;

export const ownedBy = (owner: Owner, accountId: string): boolean => owner === null || owner === accountId;

/** Time as services see it; tests pass a clock they can move. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Fetches a user URL through the SSRF guard (src/net). Throws when it cannot. */
export interface UrlFetcher {
  /** `signal` aborts the request (its item was cancelled, or the worker stops). */
  fetch(url: string, signal?: AbortSignal): Promise<{ data: Buffer }>;
}

/** Whether an account has a destination of this name (the destinations part answers it). */
export interface DestinationLookup {
  exists(accountId: string, name: string): Promise<boolean>;
}
