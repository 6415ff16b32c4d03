import type { DeliveryRecord, TaskRecord } from '../store/records.js';

/** `task.<type>.completed` or `task.<type>.failed`, as in SPEC part 6. */
export const settledEventKind = (task: TaskRecord): string => `task.${task.type}.${task.status}`;

/**
 * The in-process events and their payloads. Each is emitted after the change it reports is
 * durable, so a listener may act on it (record a webhook event, wake a dispatcher) at once.
 */
export interface ServiceEvents {
  /** A task and its reserve were stored. */
  'task:created': { task: TaskRecord };
  /** One item of a pending task finished (success or failure) and was journaled. */
  'task:item': { task: TaskRecord; index: number };
  /** A task settled; fires once per task. `kind` is its SPEC part 6 event kind. */
  'task:settled': { kind: string; task: TaskRecord };
  /** Webhook deliveries became due now (recorded, or queued again): the dispatcher wakes. */
  'delivery:due': Record<string, never>;
  /** A delivery attempt was journaled, with the delivery as it now stands. */
  'delivery:attempted': { delivery: DeliveryRecord };
}

export type EventName = keyof ServiceEvents;
type Listener<Name extends EventName> = (payload: ServiceEvents[Name]) => void;

/**
 * One bus for task and delivery events: any number of listeners per event, called in
 * subscription order. A listener that throws is reported and does not stop the others or
 * the emitter (the change it reports is already durable).
 */
export class EventBus {
  private readonly listeners = new Map<EventName, Set<Listener<never>>>();
  constructor(private readonly onListenerError: (name: EventName, err: unknown) => void = () => undefined) {}

  /** Subscribes; returns the unsubscribe function. */
  on<Name extends EventName>(name: Name, listener: Listener<Name>): () => void {
    const set = this.listeners.get(name) ?? new Set();
    this.listeners.set(name, set);
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  emit<Name extends EventName>(name: Name, payload: ServiceEvents[Name]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Name>)(payload);
      } catch (err) {
        this.onListenerError(name, err);
      }
    }
  }
}
