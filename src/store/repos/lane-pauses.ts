import type { LanePauseRecord } from '../records/lane-pauses.js';

/** Lanes an operator paused (imgtask queues pause): their queued work waits, fleet-wide, until resumed. */
export interface LanePauseRepo {
  list(): Promise<LanePauseRecord[]>;
  /** Pauses a lane; a lane paused already keeps its first time. */
  pause(record: LanePauseRecord): Promise<LanePauseRecord>;
  /** False when the lane was not paused. */
  resume(lane: string): Promise<boolean>;
}
