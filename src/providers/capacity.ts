import { ProviderError } from '../domain/task-status.js';

/**
 * A call capped at `concurrency` in flight: past it the provider is busy and a call fails PROVIDERS_BUSY (retried, then
 * reported).
 */
export interface Limited<Args extends unknown[], Output> {
  busy(): boolean;
  call(...args: Args): Promise<Output>;
}

/** Caps calls of `fn` at `concurrency` in flight (read on each call, so a reload applies). */
export function limitCalls<Args extends unknown[], Output>(
  fn: (...args: Args) => Promise<Output>,
  concurrency: () => number,
): Limited<Args, Output> {
  let inFlight = 0;
  return {
    busy: () => inFlight >= concurrency(),
    async call(...args) {
      if (inFlight >= concurrency()) throw new ProviderError('PROVIDERS_BUSY', 'the provider has no capacity now');
      inFlight += 1;
      try {
        return await fn(...args);
      } finally {
        inFlight -= 1;
      }
    },
  };
}

/**
 * Caps a generator (images or videos) at `concurrency` requests in flight; past it, or when the generator says so, it
 * is busy. Its `down` passes through.
 */
export function limitGenerator<Params, Output>(
  generator: { generate(params: Params): Promise<Output>; busy?(): boolean; down?(): boolean },
  concurrency: () => number,
): { busy(): boolean; down(): boolean; generate(params: Params): Promise<Output> } {
  const limited = limitCalls((params: Params) => generator.generate(params), concurrency);
  // Busy when full here, or when the generator says so itself (its server's queue full).
  return {
    busy: () => limited.busy() || generator.busy?.() === true,
    down: () => generator.down?.() === true,
    generate: limited.call,
  };
}
