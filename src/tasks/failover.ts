import { ProviderError } from '../domain/tasks.js';

/**
 * The provider an attempt uses: attempt n starts at the model's n-th provider (failover across
 * them) and takes the first one with capacity; when every one is busy the attempt fails
 * PROVIDERS_BUSY (retried, then reported). `lookup` finds a provider by name; `model` names the model in messages ("model x", "video model x").
 * `preferred` (the lane's choice: the provider that last ran this model) is where the turn
 * starts instead, counting attempts from it.
 */
export function providerForAttempt<P extends { busy?(): boolean }>(names: readonly string[], attempt: number, lookup: (name: string) => P | undefined, model: string, preferred?: string): P {
  const first = preferred === undefined ? 0 : Math.max(0, names.indexOf(preferred));
  const turn = names.map((_, i) => names[(first + attempt - 1 + i) % names.length]);
  const name = turn.find((candidate) => !lookup(candidate)?.busy?.());
  if (!name) throw new ProviderError('PROVIDERS_BUSY', `every provider of ${model} is at capacity`);
  const provider = lookup(name);
  if (!provider) throw new ProviderError('PROVIDER_ERROR', `provider ${name} is not available`, { retryable: names.length > 1 });
  return provider;
}
