/** A lane an operator paused: its queued work waits until it is resumed (docs/scheduling.md). */
export interface LanePauseRecord {
  /** The lane's name. */
  id: string;
  pausedAt: string;
}
