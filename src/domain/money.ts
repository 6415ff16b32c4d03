/**
 * Money is an integer count of micro-USD inside the service (0.0002 USD = 200) and a
 * decimal string at the edges ("0.0002", "0.02", "0"). Integers make sums exact.
 */
export type Micros = number;

const MICROS_PER_USD = 1_000_000;
/** Largest amount accepted anywhere: one billion USD keeps every sum a safe integer. */
const MAX_MICROS = 1_000_000_000 * MICROS_PER_USD;

const DECIMAL = /^(\d{1,10})(?:\.(\d{1,6}))?$/;

/** Parses a non-negative decimal USD string ("12", "0.5", "0.0002") or returns null. */
export function parseUsd(text: string): Micros | null {
  const match = DECIMAL.exec(text.trim());
  if (!match) return null;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(6, '0'));
  const micros = whole * MICROS_PER_USD + fraction;
  return micros <= MAX_MICROS ? micros : null;
}

/**
 * An amount given either as micro-USD or as the API's decimal USD text ("25", "0.5"), in micro-USD:
 * the one conversion every door (route, operator, console) relies on. Text that is no amount is null.
 */
export function toMicros(amount: Micros | string): Micros | null {
  return typeof amount === 'number' ? amount : parseUsd(amount);
}

/** Formats micros as the shortest exact decimal string: 200 → "0.0002", 0 → "0". */
export function formatUsd(micros: Micros): string {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`not an integer amount: ${micros}`);
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const fraction = String(abs % MICROS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return fraction ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}
