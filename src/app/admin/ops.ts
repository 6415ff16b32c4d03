import type { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { accountOps } from './accounts.js';
import type { AdminDeps } from './admin-deps.js';
import { consoleOps } from './console.js';
import { credentialOps } from './credentials.js';
import { destinationOps } from './destinations.js';
import { maintenanceOps } from './maintenance.js';
import { queueOps } from './queues.js';
import { usageOps } from './usage.js';
import { webhookOps } from './webhooks.js';

/**
 * Every operator action, shared by the CLI on a stopped server's data dir and the admin socket
 * of a running one, so both paths run the very same code over the same services.
 */
const OPS = {
  ...accountOps,
  ...consoleOps,
  ...credentialOps,
  ...webhookOps,
  ...destinationOps,
  ...maintenanceOps,
  ...queueOps,
  ...usageOps,
};

type Ops = typeof OPS;
export type AdminOpName = keyof Ops;
/** What an action takes (as sent: the input of its schema). */
export type AdminArgs<Name extends AdminOpName> = z.input<Ops[Name]['args']>;
/** What an action answers. */
export type AdminResult<Name extends AdminOpName> = Awaited<ReturnType<Ops[Name]['run']>>;

export const isAdminOp = (name: string): name is AdminOpName => Object.hasOwn(OPS, name);

/**
 * Validates the arguments and runs one operator action. Bad arguments are VALIDATION_ERROR naming the first bad one.
 */
export async function runAdminOp<Name extends AdminOpName>(
  services: AdminDeps,
  name: Name,
  rawArgs: unknown,
): Promise<AdminResult<Name>> {
  const op = OPS[name] as unknown as { args: z.ZodType; run(s: AdminDeps, a: unknown): Promise<AdminResult<Name>> };
  const parsed = op.args.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError('VALIDATION_ERROR', `${issue.path.join('.') || 'arguments'}: ${issue.message}`);
  }
  return op.run(services, parsed.data);
}
