import { z } from 'zod';
import { USAGE_GROUP_BY } from '../../services/usage.js';
import { AccountRef } from './accounts.js';
import { adminOp } from './op.js';

/**
 * GET /usage for any account (an erased one too: its charges stay on the books): the same report, the same checks of
 * from, to and groupBy.
 */
export const usageOps = {
  usage: adminOp({
    args: z.object({
      account: AccountRef,
      from: z.string().max(64).optional(),
      to: z.string().max(64).optional(),
      groupBy: z.enum(USAGE_GROUP_BY).optional(),
    }),
    run: async (s, { account, ...query }) => s.usage.report((await s.accounts.lookup(account)).id, query),
  }),
};
