import { parseUsd } from '../../../domain/money.js';
import type { CreateKeyInput, UpdateKeyInput } from '../../../services/api-keys.js';
import type { CreateApiKeyBody } from './create.js';
import type { UpdateApiKeyBody } from './update.js';

/**
 * A POST /api-key body as the key service takes it, for every door that creates keys (the route,
 * the operator, the console): the spending limit in micro-USD, and a null setting left out (none
 * is what an absent one means).
 */
export function createKeyFields(body: CreateApiKeyBody): Omit<CreateKeyInput, 'accountId' | 'creatorScopes'> {
  return {
    name: body.name,
    scopes: body.scopes,
    spendingLimit: body.spendingLimit === undefined ? undefined : parseUsd(body.spendingLimit)!,
    spendingLimitPeriod: body.spendingLimitPeriod,
    requestsPerMinute: body.requestsPerMinute,
    expiresAt: body.expiresAt,
    maxConcurrent: body.maxConcurrent ?? undefined,
    maxPriority: body.maxPriority ?? undefined,
  };
}

/** A PATCH /api-key/{id} body as the key service takes it: the spending limit in micro-USD; null stays null (it removes the setting). */
export function keyChanges(body: UpdateApiKeyBody): UpdateKeyInput {
  const { spendingLimit, ...rest } = body;
  return {
    ...rest,
    spendingLimit: spendingLimit === undefined || spendingLimit === null ? spendingLimit : parseUsd(spendingLimit)!,
  };
}
