import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Secure random bytes drawn from a pool refilled 4 KiB at a time: one call into the CSPRNG
// serves many ids instead of one call per id.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

function randomByte(): number {
  if (poolOffset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Uniform base62 text from secure random bytes (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

let lastMillis = 0;
let counter = 0;

/**
 * Time-sortable id: `prefix_` + 9 chars of milliseconds + 3 chars of a per-millisecond
 * counter (base36, fixed width) + 10 random base62 chars. Ids made later sort later,
 * even within one millisecond, so listings can page by id.
 */
export function sortableId(prefix: string, now: number = Date.now()): string {
  if (now <= lastMillis) {
    counter += 1;
    now = lastMillis;
  } else {
    lastMillis = now;
    counter = 0;
  }
  const time = now.toString(36).padStart(9, '0');
  const seq = (counter % 46656).toString(36).padStart(3, '0');
  return `${prefix}_${time}${seq}${randomBase62(10)}`;
}

/** Opaque random id: `prefix_` + 22 base62 chars (~131 bits). */
export const randomId = (prefix: string): string => `${prefix}_${randomBase62(22)}`;

/**
 * A stored image's id, as `randomId('img')` makes it: what an upload answers, usable wherever an image URL is taken.
 */
export const IMAGE_ID = /^img_[0-9A-Za-z]{22}$/;
