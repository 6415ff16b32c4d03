import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { laneNameProblem } from '../../domain/lane-names.js';
import { adminOp } from './op.js';

/** A lane by name: any name the config could make, so a lane may be paused before its first item. */
const LaneName = z.string().superRefine((name, ctx) => {
  const problem = laneNameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** The lanes: who waits, what runs, and the operator's pauses (docs/scheduling.md#operators). */
export const queueOps = {
  'queues.list': adminOp({
    args: z.object({}),
    run: (s) => s.operator.lanes(),
  }),
  /**
   * Fleet-wide: queued work waits, running items finish, creates are still taken. A lane paused already keeps its first
   * time.
   */
  'queues.pause': adminOp({
    args: z.object({ lane: LaneName }),
    run: async (s, a) => {
      const pause = await s.engine.pauseLane(a.lane);
      return { lane: pause.id, paused: true, pausedAt: pause.pausedAt };
    },
  }),
  'queues.resume': adminOp({
    args: z.object({ lane: LaneName }),
    run: async (s, a) => {
      if (!(await s.engine.resumeLane(a.lane)))
        throw new AppError(
          'VALIDATION_ERROR',
          `the lane "${a.lane}" is not paused (imgtask queues shows the paused lanes)`,
        );
      return { lane: a.lane, paused: false };
    },
  }),
};
