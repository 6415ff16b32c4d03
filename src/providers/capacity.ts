import { ProviderError } from '../domain/tasks.js';

/** A provider with one `generate` call (images or videos). */
interface Generating<Params, Output> {
  generate(params: Params): Promise<Output>;
}

export interface Limited<Params, Output> extends Generating<Params, Output> {
  /** True when the provider has `concurrency` requests in flight already. */
  busy(): boolean;
}

/** Caps a provider at `concurrency` requests in flight; past it, it is busy. */
export function limitGenerator<Params, Output>(generator: Generating<Params, Output>, concurrency: () => number): Limited<Params, Output> {
  let inFlight = 0;
  return {
    busy: () => inFlight >= concurrency(),
    async generate(params) {
      if (inFlight >= concurrency()) throw new ProviderError('PROVIDERS_BUSY', 'the provider has no capacity now');
      inFlight += 1;
      try {
        return await generator.generate(params);
      } finally {
        inFlight -= 1;
      }
    },
  };
}
