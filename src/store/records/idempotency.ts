/**
 * An Idempotency-Key's first request and, once answered, its answer (sealed with the secrets
 * key: it may hold a raw API key or a webhook secret). `id` is `<accountId>:<key>`.
 */
export interface IdempotencyRecord {
  id: string;
  accountId: string;
  key: string;
  /** SHA-256 (hex) of the method, the path and the body. */
  fingerprint: string;
  createdAt: string;
  /** In flight: when the claim lapses unless renewed; answered: when the answer stops being served (24 h). */
  expiresAt: string;
  /** In flight only: the claim's token (the answer's writer must hold it). */
  claim?: string;
  /** Answered only: the answer `{ status, headers, body }` as JSON, sealed. */
  answer?: string;
}
