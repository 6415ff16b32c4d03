import { ProviderError } from '../domain/task-status.js';

/**
 * The provider an attempt uses: attempt n starts at the model's n-th provider (failover across
 * them) and takes the first one that is up and has capacity; when every one that is up is busy
 * the attempt fails PROVIDERS_BUSY (retried, then reported). A provider that is down (its server
 * cannot be reached) is passed over while another is up; when every one is down, the first with
 * room is taken all the same, and its generate() waits for its server to come back.
 * `lookup` finds a provider by name; `model` names the model in messages ("model x", "video model x").
 * `preferred` (the lane's choice: the provider that last ran this model) is where the turn
 * starts instead, counting attempts from it.
 */
export function providerForAttempt<P extends { busy?(): boolean; down?(): boolean }>(
  names: readonly string[],
  attempt: number,
  lookup: (name: string) => P | undefined,
  model: string,
  preferred?: string,
): P {
  const first = preferred === undefined ? 0 : Math.max(0, names.indexOf(preferred));
  const turn = names.map((_, i) => names[(first + attempt - 1 + i) % names.length]);
  const up = turn.filter((candidate) => lookup(candidate)?.down?.() !== true);
  const candidates = up.length > 0 ? up : turn;
  const name = candidates.find((candidate) => !lookup(candidate)?.busy?.());
  if (!name)
    throw new ProviderError(
      'PROVIDERS_BUSY',
      up.length > 0
        ? `every provider of ${model} is at capacity`
        : `every provider of ${model} is down, and each already has as many items waiting for it as it takes`,
    );
  const provider = lookup(name);
  if (!provider)
    throw new ProviderError('PROVIDER_ERROR', `provider ${name} is not available`, { retryable: names.length > 1 });
  return provider;
}
