/** The first cool-down; each further failure in a row doubles it. */
const FIRST_COOLDOWN_MS = 1000;
/** Endpoints remembered at most; past it the longest-quiet one is forgotten (it is tried as new). */
const MAX_TRACKED = 10_000;

/**
 * Endpoints (URLs) that give no answer — a timeout, a refused or unreachable address — cool
 * down instead of each of their deliveries holding a slot until it times out: nothing is started
 * to one for 1 s after such a failure, doubling with each one in a row up to a cap; after that,
 * one send at a time (a probe) until one gets an answer. Any HTTP answer, 5xx too, ends it: the
 * endpoint answers, and the retry schedule deals with the status. Deliveries kept waiting keep
 * their place and schedule; they are only not started yet.
 */
export class EndpointBackoff {
  private readonly failing = new Map<string, { failures: number; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A send to `url` got an HTTP answer. */
  answered(url: string): void {
    this.failing.delete(url);
  }

  /** A send to `url` got no answer: it cools down, for longer than the last time. */
  unanswered(url: string, maxMs: number): void {
    const failures = (this.failing.get(url)?.failures ?? 0) + 1;
    // Set again, not updated, so the map's first key is always the longest quiet.
    this.failing.delete(url);
    this.failing.set(url, {
      failures,
      until: this.now() + Math.min(maxMs, FIRST_COOLDOWN_MS * 2 ** Math.min(failures - 1, 30)),
    });
    if (this.failing.size > MAX_TRACKED) this.failing.delete(this.failing.keys().next().value!);
  }

  /**
   * How many sends to `url` may run at once now: none while it cools down, one while it is failing, else `perEndpoint`.
   */
  cap(url: string, perEndpoint: number): number {
    const state = this.failing.get(url);
    if (!state) return perEndpoint;
    return state.until > this.now() ? 0 : 1;
  }

  /** When the first cool-down among `urls` ends; null when none of them is cooling down. */
  nextEnd(urls: Iterable<string>): number | null {
    const now = this.now();
    let first: number | null = null;
    for (const url of urls) {
      const until = this.failing.get(url)?.until;
      if (until !== undefined && until > now && (first === null || until < first)) first = until;
    }
    return first;
  }
}
