import type { DeliveryRecord } from '../store/records.js';

/** How many sends may run at once: in all, per account, and per endpoint (a delivery's URL). */
export interface SlotLimits {
  slots: number;
  perAccount: number;
  /** How many sends to `url` may run now (0 while it cools down). */
  endpointCap(url: string): number;
}

/**
 * Who runs next. Due deliveries read and not yet started wait here by account, in due order;
 * accounts take turns, one delivery a turn, the one served longest ago first (an account
 * neither waiting nor sending is forgotten, so one back after a pause goes first). An account
 * and an endpoint hold at most their caps of the slots: an account with a large backlog, or
 * receivers that never answer, cannot keep another account's deliveries waiting.
 */
export class DeliveryTurns {
  private readonly waiting = new Map<string, DeliveryRecord[]>();
  private waitingCount = 0;
  private readonly sendingByAccount = new Map<string, number>();
  private readonly sendingByEndpoint = new Map<string, number>();
  private sendingCount = 0;
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;

  /** Deliveries waiting. */
  get size(): number {
    return this.waitingCount;
  }

  /** Sends running (each holds a slot). */
  get sending(): number {
    return this.sendingCount;
  }

  /** Adds deliveries read from the store (in due order) to their accounts' turns. */
  add(deliveries: readonly DeliveryRecord[]): void {
    for (const delivery of deliveries) {
      const list = this.waiting.get(delivery.accountId);
      if (list) list.push(delivery);
      else this.waiting.set(delivery.accountId, [delivery]);
      this.waitingCount += 1;
    }
  }

  /** The endpoints of the deliveries waiting. */
  endpoints(): Set<string> {
    const urls = new Set<string>();
    for (const list of this.waiting.values()) for (const delivery of list) urls.add(delivery.url);
    return urls;
  }

  /**
   * Starts as many waiting deliveries as the limits let: rounds over the accounts, each taking
   * its earliest due delivery whose endpoint has room. Each is sending until `finished`.
   */
  take(limits: SlotLimits): DeliveryRecord[] {
    const taken: DeliveryRecord[] = [];
    if (this.sendingCount >= limits.slots || this.waitingCount === 0) return taken;
    const order = [...this.waiting.keys()].sort((a, b) => (this.lastTurn.get(a) ?? 0) - (this.lastTurn.get(b) ?? 0));
    // An endpoint's cap is asked once per call: a cool-down does not end halfway through.
    const caps = new Map<string, number>();
    const room = (url: string) => {
      let cap = caps.get(url);
      if (cap === undefined) {
        cap = limits.endpointCap(url);
        caps.set(url, cap);
      }
      return (this.sendingByEndpoint.get(url) ?? 0) < cap;
    };
    let took = true;
    while (took && this.sendingCount < limits.slots) {
      took = false;
      for (const account of order) {
        if (this.sendingCount >= limits.slots) break;
        if ((this.sendingByAccount.get(account) ?? 0) >= limits.perAccount) continue;
        const list = this.waiting.get(account);
        const at = list ? list.findIndex((delivery) => room(delivery.url)) : -1;
        if (!list || at < 0) continue;
        const [delivery] = list.splice(at, 1);
        if (list.length === 0) this.waiting.delete(account);
        this.waitingCount -= 1;
        this.start(delivery);
        taken.push(delivery);
        took = true;
      }
    }
    return taken;
  }

  /** A send taken by `take` is over: its slot is free. */
  finished(delivery: DeliveryRecord): void {
    this.sendingCount -= 1;
    const left = decrement(this.sendingByAccount, delivery.accountId);
    decrement(this.sendingByEndpoint, delivery.url);
    if (left === 0 && !this.waiting.has(delivery.accountId)) this.lastTurn.delete(delivery.accountId);
  }

  /** Drops every waiting delivery (they stay pending in the store); answers their ids. */
  clear(): string[] {
    const ids = [...this.waiting.values()].flatMap((list) => list.map((delivery) => delivery.id));
    this.waiting.clear();
    this.waitingCount = 0;
    return ids;
  }

  private start(delivery: DeliveryRecord): void {
    this.sendingCount += 1;
    this.sendingByAccount.set(delivery.accountId, (this.sendingByAccount.get(delivery.accountId) ?? 0) + 1);
    this.sendingByEndpoint.set(delivery.url, (this.sendingByEndpoint.get(delivery.url) ?? 0) + 1);
    this.turns += 1;
    this.lastTurn.set(delivery.accountId, this.turns);
  }
}

/** Counts one down, dropping the key at zero; answers what is left. */
function decrement(counts: Map<string, number>, key: string): number {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
  return left;
}
