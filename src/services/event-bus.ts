import { taskEventKind } from '../domain/event-kinds.js';
import type { LivePreview } from '../domain/media-types.js';
import type { TaskRecord } from '../store/records.js';

/** Running items' fractions done (0..1), by item index. */
export type ItemFractions = Record<number, number>;

/** A running item's live preview: encoded image bytes and their media type. */
export interface TaskPreview {
  taskId: string;
  index: number;
  mimeType: LivePreview['mimeType'];
  data: Buffer;
}

/** `task.<type>.completed` or `task.<type>.failed`, the webhook event kinds (docs/api/webhooks.md). */
export const settledEventKind = (task: TaskRecord): string => taskEventKind(task.type, task.status);

/**
 * The in-process events and their payloads. Each is emitted after the change it reports is
 * durable, so a listener may act on it (record a webhook event, wake a dispatcher) at once.
 */
export interface ServiceEvents {
  /** A task was created (its record and reserve are durable) and handed to the worker. */
  'task:created': { task: TaskRecord };
  /** A task settled; fires once per task. `kind` is its webhook event kind (docs/api/webhooks.md). */
  'task:settled': { kind: string; task: TaskRecord };
  /**
   * A task settled, maybe in another process sharing the database (PostgreSQL NOTIFY): sync
   * answers waiting on it read it again. Not a settlement to act on (that is `task:settled`).
   */
  'task:settled-elsewhere': { taskId: string };
  /**
   * One item of a pending task finished (recorded durably) and others are still running; `task` is the task after it.
   */
  'task:item': { task: TaskRecord };
  /**
   * An item finished, maybe in another process sharing the database (PostgreSQL NOTIFY):
   * `finished` is how many of its items had finished then. Live status streams read it again.
   */
  'task:item-elsewhere': { taskId: string; finished: number };
  /**
   * How far the running items of a pending task have come changed (in this process: the runner
   * holds it): `fractions` is each running item's fraction 0..1, by item index, for the items
   * whose provider reports one. In memory only, never journaled; at most a few per second per
   * task (the runner throttles it), the latest always sent.
   */
  'task:progress': { taskId: string; fractions: ItemFractions };
  /**
   * The same, from the process running the task on a shared database (PostgreSQL NOTIFY): the whole set, replacing what
   * came before.
   */
  'task:progress-elsewhere': { taskId: string; fractions: ItemFractions };
  /**
   * A running item's newest live preview (a ComfyUI preview frame), in this process: at most two
   * a second per item (the runner throttles it), never stored. Live status streams send it on.
   */
  'task:preview': TaskPreview;
  /**
   * The same, from the process running the item on a shared database (PostgreSQL NOTIFY), made small enough for a
   * notification.
   */
  'task:preview-elsewhere': TaskPreview;
  /** Webhook deliveries became due now (recorded, or queued again): the dispatcher wakes. */
  'delivery:due': Record<string, never>;
  /**
   * An operator paused or resumed a lane (imgtask queues pause|resume), here or in another process of the fleet: the
   * lanes read the pauses again.
   */
  'lanes:changed': Record<string, never>;
  /** The same, announced by another process (PostgreSQL NOTIFY). */
  'lanes:changed-elsewhere': Record<string, never>;
}

export type EventName = keyof ServiceEvents;
/** Whether a task about to settle as `status` has anyone to tell (EventBus.setAudience). */
type Audience = (task: TaskRecord, status: 'completed' | 'failed') => Promise<boolean>;
/** What a listener returns is ignored, except that a rejected promise is reported like a throw. */
type Listener<Name extends EventName> = (payload: ServiceEvents[Name]) => unknown;

/**
 * One bus for task and delivery events: any number of listeners per event, called in
 * subscription order. A listener that throws (or whose promise rejects) is reported and does not stop the others or
 * the emitter (the change it reports is already durable).
 */
export class EventBus {
  private readonly listeners = new Map<EventName, Set<Listener<never>>>();
  private audience: Audience | undefined;
  constructor(private readonly onListenerError: (name: EventName, err: unknown) => void = () => undefined) {}

  /**
   * Who answers, before a settlement is written, whether anyone is to be told of it (the webhook
   * outbox, once). A settlement nobody is to hear of is marked so in its own write, which saves
   * the write of a mark of its own after it.
   */
  setAudience(audience: Audience): () => void {
    this.audience = audience;
    return () => {
      if (this.audience === audience) this.audience = undefined;
    };
  }

  /**
   * Whether `task`, settled as `status`, has anyone to tell; true while nobody answers (the listeners decide after it
   * is written).
   */
  hasAudience(task: TaskRecord, status: 'completed' | 'failed'): Promise<boolean> {
    // An answer that fails is no answer: the settlement is written unmarked and the listener decides after.
    return this.audience ? this.audience(task, status).catch(() => true) : Promise.resolve(true);
  }

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
        const result = (listener as Listener<Name>)(payload);
        if (result instanceof Promise) result.catch((err: unknown) => this.onListenerError(name, err));
      } catch (err) {
        this.onListenerError(name, err);
      }
    }
  }
}
