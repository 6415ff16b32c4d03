import { EventEmitter } from 'node:events';
import type { TaskRecord } from '../store/records.js';

/** `task.<type>.completed` or `task.<type>.failed`, as in SPEC part 6. */
export const settledEventKind = (task: TaskRecord): string => `task.${task.type}.${task.status}`;

export interface TaskSettledEvent {
  kind: string;
  task: TaskRecord;
}

/**
 * In-process events. `task:settled` fires once per task, after its settlement is durable;
 * the webhook outbox subscribes to it.
 */
export class EventBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  onTaskSettled(listener: (event: TaskSettledEvent) => void): () => void {
    this.emitter.on('task:settled', listener);
    return () => this.emitter.off('task:settled', listener);
  }
  emitTaskSettled(task: TaskRecord): void {
    this.emitter.emit('task:settled', { kind: settledEventKind(task), task });
  }
}
