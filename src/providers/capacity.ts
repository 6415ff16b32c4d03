import { ProviderError } from '../domain/tasks.js';
import type { ImageGenerator } from './types.js';

export interface LimitedGenerator extends ImageGenerator {
  /** True when the provider has `concurrency` requests in flight already. */
  busy(): boolean;
}

/** Caps a provider at `concurrency` requests in flight; past it, it is busy. */
export function limitGenerator(generator: ImageGenerator, concurrency: () => number): LimitedGenerator {
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
