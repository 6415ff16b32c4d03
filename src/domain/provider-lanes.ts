/**
 * The work lane of a model's items: its providers, sorted and joined by "+" (one provider: its
 * name, as before), so every model served by the same servers shares one queue, and a model
 * spread over several servers runs as many items at once as they take together.
 */
export const providersLane = (names: readonly string[]): string => [...new Set(names)].sort().join('+');

/** The providers a lane is made of (a lane of one name: that name; it may be no provider at all). */
export const laneProviders = (lane: string): string[] => lane.split('+');

/** The providers a model names, in its order of failover: `providers`, or its one `provider`. */
export const modelProviders = (model: { provider?: string; providers?: readonly string[] }): readonly string[] =>
  model.providers ?? (model.provider ? [model.provider] : []);
