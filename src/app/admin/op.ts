import type { z } from 'zod';
import type { AdminDeps } from './admin-deps.js';

/** An operator action: its arguments' schema, and what it does with the services. */
export interface AdminOp<Args extends z.ZodType, Result> {
  args: Args;
  run(services: AdminDeps, args: z.output<Args>): Promise<Result>;
}

/** Declares an operator action; `run` sees its arguments as the schema parsed them. */
export const adminOp = <Args extends z.ZodType, Result>(op: AdminOp<Args, Result>): AdminOp<Args, Result> => op;
