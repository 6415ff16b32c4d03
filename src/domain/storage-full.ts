import { AppError, isAppError } from './errors.js';

/**
 * Seconds a client is told to wait (Retry-After) after a write refused for lack of space. Writes
 * resume by themselves within about a second of space returning; a full disk usually needs an
 * operator, so a retry much sooner than this would only be refused again.
 */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

/**
 * The error codes of a write refused for lack of space: the file system is full (ENOSPC), the
 * user's quota is used up (EDQUOT), or PostgreSQL's disk_full (SQLSTATE 53100).
 */
const OUT_OF_SPACE_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', '53100']);

/**
 * Whether `err` is a write refused for lack of space: raw (an errno or SQLSTATE code) or already a STORAGE_FULL
 * AppError.
 */
export function isOutOfSpace(err: unknown): boolean {
  if (isAppError(err)) return err.code === 'STORAGE_FULL';
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && OUT_OF_SPACE_CODES.has(code);
}

/** The request error for a write refused for lack of space: 507 STORAGE_FULL with Retry-After. */
export function storageFull(
  message = 'the server is out of storage space: nothing was written; retry later',
): AppError {
  return new AppError('STORAGE_FULL', message, { headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) } });
}

/** `err` as a STORAGE_FULL AppError when it is a write refused for lack of space; null otherwise. */
export function asStorageFull(err: unknown): AppError | null {
  if (!isOutOfSpace(err)) return null;
  return isAppError(err) ? err : storageFull();
}
