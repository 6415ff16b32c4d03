/**
 * Request error codes (docs/api/errors.md; the table: docs/reference/errors.md#request-errors):
 * exactly the interface's codes, plus RATE_LIMIT_EXCEEDED (a 429 other than the spending limit,
 * which the interface allows: a 429 may carry another code), NOT_READY (the operator's readiness
 * probe, outside the public API), STORE_UNAVAILABLE (a 503 the API may answer any request with
 * while the database is out of reach) and STORAGE_FULL (a 507 for a write refused for lack of
 * space, which the interface does not foresee).
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  API_KEY_LIMIT_REACHED: 400,
  WEBHOOK_API_KEY_NOT_FOUND: 400,
  DESTINATIONS_INVALID_PROVIDER: 400,
  UNAUTHORIZED: 401,
  INVALID_TOKEN: 401,
  TOKEN_EXPIRED: 401,
  INSUFFICIENT_SCOPE: 403,
  SCOPE_ESCALATION: 403,
  TASK_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  DESTINATION_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  NOT_FOUND: 404,
  DESTINATION_NAME_TAKEN: 409,
  /** POST /tasks/{id}/cancel on a task that has already settled (completed or failed). */
  TASK_NOT_PENDING: 409,
  /** An Idempotency-Key sent again with another request (method, path or body). */
  IDEMPOTENCY_KEY_REUSED: 409,
  /** An Idempotency-Key whose first request is still being answered (by another process); retry after Retry-After. */
  IDEMPOTENCY_KEY_IN_USE: 409,
  INSUFFICIENT_BALANCE: 422,
  SPENDING_LIMIT_EXCEEDED: 429,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  UNKNOWN_ERROR: 500,
  ENQUEUE_FAILED: 500,
  DESTINATION_TEST_FAILED: 502,
  /** GET /ready: the store refuses writes, or the models are still loading. */
  NOT_READY: 503,
  /**
   * A write refused for lack of space (the disk is full, a quota is used up, or free space is
   * below store.minFreeBytes), with Retry-After: the server's condition, not a fault; nothing
   * was written, and writes resume by themselves once space returns (ours, an addition to the interface: RFC 4918's
   * 507).
   */
  STORAGE_FULL: 507,
  /**
   * The database could not be reached (restarting, failing over, the connection killed) while the request ran: retry
   * after Retry-After.
   */
  STORE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** What each request error code means, one line each (docs/reference/errors.md is generated from it). */
export const ERROR_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  VALIDATION_ERROR:
    'A check after the schema passed failed: metadata over 2048 bytes, a destination the account does not own, inputs or options the model cannot take, an upload with no, too many, wrong or wrongly sized files (413 with this code for an upload body over 100 MB).',
  API_KEY_LIMIT_REACHED: 'The account already has 100 live API keys.',
  WEBHOOK_API_KEY_NOT_FOUND: 'A webhook names an API key the account does not have.',
  DESTINATIONS_INVALID_PROVIDER: "A destination update changed the destination's provider.id.",
  UNAUTHORIZED:
    'No usable bearer header, an unknown, deleted or expired key, or a credential this route does not take.',
  INVALID_TOKEN: 'A malformed token, or one not signed by the service (no message).',
  TOKEN_EXPIRED: 'A token past its lifetime, such as a PAT older than one hour (no message).',
  INSUFFICIENT_SCOPE:
    'The credentials lack a scope the endpoint needs; the body lists the required and current scopes.',
  SCOPE_ESCALATION:
    'An API key used where a scope only access tokens hold (manage, keys) is needed; the body lists the requested and allowed scopes.',
  TASK_NOT_FOUND: 'No such task, or not one of this account (no message).',
  API_KEY_NOT_FOUND: 'No such API key on this account (no message).',
  DESTINATION_NOT_FOUND: 'No such destination on this account.',
  WEBHOOK_NOT_FOUND: 'No such webhook on this account.',
  NOT_FOUND: 'No such route or resource.',
  DESTINATION_NAME_TAKEN: 'The account already has a destination of that name.',
  TASK_NOT_PENDING: 'POST /tasks/{id}/cancel on a task that has already settled (completed or failed).',
  IDEMPOTENCY_KEY_REUSED: 'An Idempotency-Key sent again with another request (method, path or body).',
  IDEMPOTENCY_KEY_IN_USE: 'The first request of this Idempotency-Key is still being answered; retry after Retry-After.',
  INSUFFICIENT_BALANCE: "The available balance is below the task's estimate; nothing was queued.",
  SPENDING_LIMIT_EXCEEDED:
    "The key's spending limit for the current period is used up; it clears when the period rolls over.",
  RATE_LIMIT_EXCEEDED:
    'Too many creates per minute, too many pending tasks, or too long a queue ahead (limits.*), with Retry-After.',
  INTERNAL_SERVER_ERROR: 'An unexpected fault in the server.',
  UNKNOWN_ERROR: 'Storing or reading a destination secret failed, or a sync rate, alt or review task failed.',
  ENQUEUE_FAILED:
    'Queueing failed right after the task was created: the task is failed with ENQUEUE_FAILED and its hold released.',
  DESTINATION_TEST_FAILED:
    "The storage target refused the test upload, or could not be reached; the message is the provider's.",
  NOT_READY: 'GET /ready: the store refuses writes, or the models are still loading.',
  STORAGE_FULL:
    'A write refused for lack of space (disk full, quota used up, or below store.minFreeBytes), with Retry-After; nothing was written.',
  STORE_UNAVAILABLE: 'The database could not be reached while the request ran; retry after Retry-After.',
};

/** Codes whose body never carries a message (docs/api/errors.md). */
const SILENT_CODES: ReadonlySet<ErrorCode> = new Set([
  'TASK_NOT_FOUND',
  'API_KEY_NOT_FOUND',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
]);

export interface ScopeDetails {
  required?: string[];
  current?: string[];
  requested?: string[];
  allowed?: string[];
}

/**
 * The one request error. Services throw it; the API's error handler turns it into the
 * flat `{ code, message? }` body with the status from ERROR_STATUS.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly scopes?: ScopeDetails;
  /** Status override: 413 VALIDATION_ERROR on an oversized upload body. */
  readonly statusOverride?: number;
  /** Response headers an HTTP answer carries with the error (Retry-After on backpressure). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { scopes?: ScopeDetails; status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message ?? code);
    this.name = 'AppError';
    this.code = code;
    this.scopes = options.scopes;
    this.statusOverride = options.status;
    this.headers = options.headers;
    this.silent = !message || SILENT_CODES.has(code);
  }

  /** True when the body must not carry a message. */
  readonly silent: boolean;

  get status(): number {
    return this.statusOverride ?? ERROR_STATUS[this.code];
  }

  toBody(): { code: ErrorCode; message?: string; scopes?: ScopeDetails } {
    const body: { code: ErrorCode; message?: string; scopes?: ScopeDetails } = { code: this.code };
    if (!this.silent) body.message = this.message;
    if (this.scopes) body.scopes = this.scopes;
    return body;
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
