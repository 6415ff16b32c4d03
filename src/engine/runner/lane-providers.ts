import type { LaneJob } from './lane-batch.js';

/** How far past the head of the order a free provider looks for an item of the model it last ran. */
export const AFFINITY_WINDOW = 8;

/** One provider of a lane: its room, and the model its last item ran (still loaded there). */
export interface ProviderRoom {
  readonly name: string;
  capacity: number;
  running: number;
  last: string | undefined;
}

/**
 * The providers a lane is made of, their room, and the model each last ran: where the next item goes (model affinity).
 */
export class LaneProviders {
  private rooms: ProviderRoom[] = [];

  get count(): number {
    return this.rooms.length;
  }

  /** The config changed: the providers again, each one kept keeping its running items and its last model. */
  resize(providers: { name: string; capacity: number }[]): void {
    const known = new Map(this.rooms.map((provider) => [provider.name, provider]));
    this.rooms = providers.map(({ name, capacity }) => {
      const kept = known.get(name);
      if (kept) {
        kept.capacity = capacity;
        return kept;
      }
      return { name, capacity, running: 0, last: undefined };
    });
  }

  /**
   * The item to start, the head of the order or one `behind` it finds, and the provider it should go to. With several
   * providers, an item goes to a free one that last ran its model; a free provider whose model the head does not want
   * takes an item of its own model from just behind the head (`behind(model)`), when the head's model is loaded on a
   * provider that will soon take it; otherwise the head goes to a free provider (one never used first), so none idles
   * while work waits.
   */
  choose(
    head: LaneJob,
    behind: (model: string) => LaneJob | undefined,
  ): { job: LaneJob; provider: ProviderRoom | undefined } {
    if (this.rooms.length < 2) return { job: head, provider: this.rooms[0] };
    const free = this.rooms.filter((provider) => provider.running < provider.capacity);
    if (free.length === 0) return { job: head, provider: undefined };
    const wanted = head.affinity;
    const match = wanted === undefined ? undefined : free.find((provider) => provider.last === wanted);
    if (wanted === undefined || match) return { job: head, provider: match ?? free[0] };
    if (this.rooms.some((provider) => provider.last === wanted)) {
      for (const provider of free) {
        if (provider.last === undefined) continue;
        const own = behind(provider.last);
        if (own) return { job: own, provider };
      }
    }
    return { job: head, provider: free.find((provider) => provider.last === undefined) ?? free[0] };
  }
}
