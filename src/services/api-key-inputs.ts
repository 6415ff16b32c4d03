import { AppError } from '../domain/errors.js';
import { type Micros, toMicros } from '../domain/money.js';
import { API_KEY_SCOPES, isOptInScope, isTokenOnlyScope } from '../domain/scopes.js';
import { isoTime } from '../domain/time.js';
import type { SpendingLimitPeriod } from '../store/records.js';

/**
 * A key's settings as every door gives them (the API's bodies, the operator's actions, the console's
 * forms): one mapping, here, from those to what the key service stores.
 */
/**
 * A spending limit as every door gives it: micro-USD, or the API's decimal USD text ("25", "0.5"),
 * which the service turns into micro-USD.
 */
export type SpendingLimitInput = Micros | string;

/** A change of a key's settings (PATCH /api-key/{id}, as its body); null removes a setting. */
export interface UpdateKeyInput {
  name?: string | null;
  requestsPerMinute?: number | null;
  /** ISO time, in the future. */
  expiresAt?: string | null;
  spendingLimit?: SpendingLimitInput | null;
  spendingLimitPeriod?: SpendingLimitPeriod;
  maxConcurrent?: number | null;
  maxPriority?: number | null;
}

/** A new key (POST /api-key, as its body), for an account. */
export interface CreateKeyInput {
  accountId: string;
  name?: string;
  /** Defaults to every scope the creator may grant. */
  scopes?: string[];
  /**
   * The scopes of the credential creating the key: a key may hold only scopes its creator holds.
   * Omitted for the operator (CLI, admin socket), who may grant every API-key scope.
   */
  creatorScopes?: readonly string[];
  spendingLimit?: SpendingLimitInput;
  spendingLimitPeriod?: SpendingLimitPeriod;
  requestsPerMinute?: number;
  /** ISO time, in the future. */
  expiresAt?: string;
  /** null, as absent: no bound. */
  maxConcurrent?: number | null;
  /** null, as absent: the default. */
  maxPriority?: number | null;
}

/**
 * A spending limit in micro-USD; text that is no USD amount is VALIDATION_ERROR (the doors' schemas refuse it first).
 */
export function spendingLimitMicros(amount: SpendingLimitInput): Micros {
  const micros = toMicros(amount);
  if (micros === null)
    throw new AppError('VALIDATION_ERROR', 'spendingLimit: a decimal USD amount such as "25" or "0.5"');
  return micros;
}

/**
 * The scopes a new key gets. It may hold only API-key scopes (never `keys` or `manage`) that its
 * creator holds: asking for more is SCOPE_ESCALATION naming the excess and what may be granted;
 * asking for none gets everything the creator may grant but the opt-in scopes (workflow:raw), never more.
 */
export function grantedScopes(input: CreateKeyInput): string[] {
  const grantable: string[] = API_KEY_SCOPES.filter(
    (scope) => !input.creatorScopes || input.creatorScopes.includes(scope),
  );
  // Without a list: every grantable scope but the opt-in ones (workflow:raw), which are given only by name.
  const requested = [...new Set(input.scopes ?? grantable.filter((scope) => !isOptInScope(scope)))];
  const tokenOnly = requested.filter(isTokenOnlyScope);
  if (tokenOnly.length > 0) {
    throw new AppError(
      'SCOPE_ESCALATION',
      `an API key cannot hold the scope ${tokenOnly.join(', ')}; such actions are done with an access token`,
      {
        scopes: { requested: tokenOnly, allowed: grantable },
      },
    );
  }
  const beyond = requested.filter((scope) => !grantable.includes(scope));
  if (beyond.length > 0) {
    throw new AppError('SCOPE_ESCALATION', `requested scopes exceed the caller's: ${beyond.join(', ')}`, {
      scopes: { requested: beyond, allowed: grantable },
    });
  }
  if (requested.length === 0)
    throw new AppError(
      'VALIDATION_ERROR',
      'the key would hold no scope: the credential creating it holds none of the API-key scopes',
    );
  return requested;
}

/** An expiry time as stored (ISO with milliseconds); it must lie in the future. */
export function futureTime(text: string, now: number): string {
  const millis = Date.parse(text);
  if (Number.isNaN(millis)) throw new AppError('VALIDATION_ERROR', `expiresAt: not a date-time: ${text}`);
  if (millis <= now) throw new AppError('VALIDATION_ERROR', 'expiresAt must lie in the future');
  return isoTime(millis);
}
