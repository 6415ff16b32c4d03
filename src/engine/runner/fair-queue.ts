import { OrderedSet } from '@js-sdsl/ordered-set';

/** What the order of a queued item is made of (docs/scheduling.md). */
export interface FairItem {
  /** Arrival order in the lane: the last tie-break, so accounts and tasks keep arrival order. */
  readonly seq: number;
  /** Higher starts first, across accounts (-10..10). */
  readonly priority: number;
  readonly account: string;
  /** The start tag given when queued (start-time fair queueing); set by `push`. */
  tag: number;
}

/** Priority first (higher first), then the start tag, then arrival. */
const order = (a: FairItem, b: FairItem): number => b.priority - a.priority || a.tag - b.tag || a.seq - b.seq;

/**
 * The order in which a lane's queued items start: priority bands, then accounts taking turns
 * by weight, then arrival. Start-time fair queueing: an item queued by account `a` gets the
 * start tag max(V, F[a]), and F[a] grows by 1 / weight(a); the lane starts the lowest tag
 * first and its virtual time V follows the tags it starts. An account that has been idle starts
 * again at V, so it neither hoards turns nor waits behind another's backlog; two busy accounts
 * of weights 3 and 1 start 3 items to 1. Every operation is O(log n) in the items queued,
 * whatever the number of accounts (an ordered set with subtree sizes: its index is the rank).
 */
export class FairQueue<Item extends FairItem> {
  private readonly items = new OrderedSet<Item>([], order, true);
  private vtime = 0;
  /**
   * Each account's finish tag, kept while it may still matter (the account has items queued, or its tag is ahead of V).
   */
  private readonly finish = new Map<string, number>();
  /** Items queued per account (for pruning `finish`, and the operators' top accounts). */
  private readonly perAccount = new Map<string, number>();
  /** Accounts whose last queued item started, oldest first: their finish tag goes once V passes it. */
  private idle: string[] = [];
  private idleHead = 0;

  get size(): number {
    return this.items.size();
  }

  /** Queues `item` for an account of `weight` (1..100), giving it its start tag. */
  push(item: Item, weight: number): void {
    const start = Math.max(this.vtime, this.finish.get(item.account) ?? 0);
    item.tag = start;
    this.finish.set(item.account, start + 1 / Math.max(1, weight));
    this.insert(item);
  }

  /** Puts back an item taken out unstarted (parked for its key's cap), with the tag it had. */
  insert(item: Item): void {
    this.items.insert(item);
    this.perAccount.set(item.account, (this.perAccount.get(item.account) ?? 0) + 1);
  }

  /** Takes an item out of the order (it starts, is parked, or its task settled); false when it was not queued. */
  delete(item: Item): boolean {
    if (!this.items.eraseElementByKey(item)) return false;
    const left = (this.perAccount.get(item.account) ?? 1) - 1;
    if (left > 0) this.perAccount.set(item.account, left);
    else this.perAccount.delete(item.account);
    return true;
  }

  /** An item taken out to start: the lane's virtual time follows it. */
  started(item: Item): void {
    this.vtime = Math.max(this.vtime, item.tag);
    if (!this.perAccount.has(item.account)) this.idle.push(item.account);
    this.prune();
  }

  /**
   * The lane has nothing queued and nothing running: a busy period ended, and with it what
   * fairness remembers (fair queueing only weighs accounts against each other while they wait).
   */
  reset(): void {
    this.vtime = 0;
    this.finish.clear();
    this.idle = [];
    this.idleHead = 0;
  }

  /** The first item in order, if any. */
  first(): Item | undefined {
    return this.items.front();
  }

  /** Up to `count` items from the front, in order (model affinity looks a little ahead). */
  head(count: number): Item[] {
    const out: Item[] = [];
    for (const item of this.items) {
      if (out.length >= count) break;
      out.push(item);
    }
    return out;
  }

  /** How many queued items start before `item` (undefined when it is not queued). */
  rank(item: Item): number | undefined {
    const found = this.items.find(item);
    return found.equals(this.items.end()) ? undefined : found.index;
  }

  /** Queued items per account, most first (at most `limit`). */
  topAccounts(limit: number): { account: string; queued: number }[] {
    return [...this.perAccount]
      .map(([account, queued]) => ({ account, queued }))
      .sort((a, b) => b.queued - a.queued || (a.account < b.account ? -1 : 1))
      .slice(0, limit);
  }

  /** Every queued item, in order. */
  *[Symbol.iterator](): Iterator<Item> {
    yield* this.items;
  }

  /**
   * Forgets the finish tags of accounts with nothing queued once V has passed them (their next
   * item would start at V anyway), a couple per start: nothing is kept for long per idle account.
   */
  private prune(): void {
    for (let checked = 0; checked < 2 && this.idleHead < this.idle.length; checked++) {
      const account = this.idle[this.idleHead];
      if (!this.perAccount.has(account)) {
        if ((this.finish.get(account) ?? 0) > this.vtime) return;
        this.finish.delete(account);
      }
      this.idleHead += 1;
    }
    if (this.idleHead > 1024 && this.idleHead * 2 > this.idle.length) {
      this.idle = this.idle.slice(this.idleHead);
      this.idleHead = 0;
    }
  }

  /** Accounts whose finish tag is still kept (tests: nothing is kept per idle account). */
  get accountsTracked(): number {
    return this.finish.size;
  }
}
