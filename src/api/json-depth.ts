import { AppError } from '../domain/errors.js';

/**
 * Deepest nesting a JSON request body may have. Every real body of this API is a few levels
 * deep (metadata included); the bound is far above that and far below what recursive code
 * (stringify, schema checks) can walk without exhausting the stack.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text nests objects and arrays deeper than `limit`, found in one pass without
 * recursion or parsing: brackets inside strings do not count. Malformed text is left for the
 * parser to reject.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** The text is not JSON. */
export class MalformedJsonError extends Error {}

/**
 * Parses a JSON request body, refusing first one that nests deeper than MAX_JSON_DEPTH with
 * 400 VALIDATION_ERROR (so no later recursive step can overflow the stack and answer 500).
 */
export function parseRequestJson(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw new AppError('VALIDATION_ERROR', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedJsonError('Malformed JSON in request body');
  }
}
