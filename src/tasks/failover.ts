import { ProviderError } from '../domain/tasks.js';

/**
 * The provider an attempt uses: attempt n starts at the model's n-th provider (failover across
 * them) and takes the first one with capacity; when every one is busy the attempt fails
 * PROVIDERS_BUSY (retried, then reported). `lookup` finds a provider by name; `model` names the model in messages ("model x", "video model x").
 */
export function providerForAttempt<P extends { busy?(): boolean }>(names: readonly string[], attempt: number, lookup: (name: string) => P | undefined, model: string): P {
  const turn = names.map((_, i) => names[(attempt - 1 + i) % names.length]);
  const name = turn.find((candidate) => !lookup(candidate)?.busy?.());
  if (!name) throw new ProviderError('PROVIDERS_BUSY', `every provider of ${model} is at capacity`);
  const provider = lookup(name);
  if (!provider) throw new ProviderError('PROVIDER_ERROR', `provider ${name} is not available`, { retryable: names.length > 1 });
  return provider;
}
