import type { Micros } from './money.js';

/** Fixed unit prices, in micro-USD (docs/api/limits.md#prices). */
export const UNIT_PRICES = {
  removeBackground: 20_000, // 0.02 USD per request
  rate: 200, // 0.0002 USD per URL
  alt: 400, // 0.0004 USD per URL
} as const satisfies Record<string, Micros>;
