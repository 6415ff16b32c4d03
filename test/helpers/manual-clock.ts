import type { Clock } from '../../src/services/ports.js';

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  constructor(private millis: number = Date.parse('2026-11-22T08:00:00.000Z')) {}
  now(): number {
    return this.millis;
  }
  advance(ms: number): void {
    this.millis += ms;
  }
  set(millis: number): void {
    this.millis = millis;
  }
}
