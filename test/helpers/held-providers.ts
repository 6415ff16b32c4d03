import { ProviderError } from '../../src/domain/task-status.js';
import { bundledFfmpegPath } from '../../src/media/ffmpeg.js';
import { createPlaceholderGenerator } from '../../src/providers/embedded/placeholder.js';
import { createPlaceholderVideoGenerator } from '../../src/providers/embedded/placeholder-video.js';
import type { ProviderSet } from '../../src/providers/provider-types.js';
import { fakeProviders } from '../fixtures/test-providers.js';

/**
 * A gate the test opens and closes: while held, every provider call waits at it (its item stays
 * running, so its task stays pending) until it is let go or the item's signal aborts it.
 */
export interface Gate {
  hold(): void;
  letGo(): void;
  /** Calls waiting at the gate now. */
  waiting(): number;
}

/**
 * The embedded placeholder image and video generators and the fake raters, alt writer and
 * remover, each passing `gate` first; `from` holds only items from that index on; `deaf` makes
 * them wait for the gate whatever their signal says (a provider that goes on after a cancel).
 */
export function heldProviders(options: { from?: number; deaf?: boolean } = {}): {
  gate: Gate;
  providers: Partial<ProviderSet>;
} {
  let held = false;
  const waiters = new Set<() => void>();
  const gate: Gate = {
    hold: () => {
      held = true;
    },
    letGo: () => {
      held = false;
      for (const go of [...waiters]) go();
    },
    waiting: () => waiters.size,
  };
  const pass = (signal: AbortSignal, index = Number.POSITIVE_INFINITY): Promise<void> => {
    if (!held || index < (options.from ?? 0)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const go = () => {
        waiters.delete(go);
        resolve();
      };
      waiters.add(go);
      if (options.deaf) return;
      signal.addEventListener(
        'abort',
        () => {
          waiters.delete(go);
          reject(new ProviderError('TIMEOUT', 'aborted at the test gate', { retryable: false }));
        },
        { once: true },
      );
    });
  };
  const fakes = fakeProviders();
  const image = createPlaceholderGenerator();
  const video = createPlaceholderVideoGenerator({ ffmpegPath: bundledFfmpegPath });
  /** `call` once the gate lets it through. */
  const after =
    <T>(call: () => Promise<T>) =>
    async (signal: AbortSignal, index?: number): Promise<T> => {
      await pass(signal, index);
      return call();
    };
  const providers: Partial<ProviderSet> = {
    ...fakes,
    generator: () => ({ generate: (params) => after(() => image.generate(params))(params.signal, params.index) }),
    videoGenerator: () => ({ generate: (params) => after(() => video.generate(params))(params.signal, params.index) }),
    nsfwRater: {
      rate: (source, request, signal) => after(() => fakes.nsfwRater!.rate(source, request, signal))(signal),
    },
    altText: { describe: (source, signal) => after(() => fakes.altText!.describe(source, signal))(signal) },
    backgroundRemover: {
      remove: (source, signal) => after(() => fakes.backgroundRemover!.remove(source, signal))(signal),
    },
  };
  return { gate, providers };
}
