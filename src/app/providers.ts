import type { Config } from '../config/schema.js';
import { createPlaceholderGenerator } from '../providers/embedded/placeholder.js';
import { createRulePromptEnhancer } from '../providers/embedded/prompt-rules.js';
import type { ImageGenerator, ProviderSet } from '../providers/types.js';

/** Builds the providers the config names. `overrides` replace capabilities (tests add fakes). */
export function buildProviderSet(config: Config, overrides: Partial<ProviderSet> = {}): ProviderSet {
  const generators = new Map<string, ImageGenerator>();
  for (const [name, provider] of Object.entries(config.providers)) {
    if (provider.type === 'placeholder') generators.set(name, createPlaceholderGenerator());
  }
  return {
    generator: (name) => generators.get(name),
    promptEnhancer: createRulePromptEnhancer(),
    ...overrides,
  };
}
