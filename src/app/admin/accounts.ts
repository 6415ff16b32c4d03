import { z } from 'zod';
import { parseUsd } from '../../domain/money.js';
import { ACCOUNT_WEIGHT } from '../../domain/scheduling.js';
import { adminOp } from './op.js';

const Usd = z.string().refine((value) => parseUsd(value) !== null, 'expected a USD amount such as 10 or 0.5');
/** An account, by id (`acc_…`) or by name. */
export const AccountRef = z.string().min(1);

export const accountOps = {
  'accounts.create': adminOp({
    args: z.object({ name: z.string(), credit: Usd.optional() }),
    run: async (s, a) => s.accounts.view(await s.accounts.create(a.name, a.credit ? parseUsd(a.credit)! : 0)),
  }),
  'accounts.credit': adminOp({
    args: z.object({ account: AccountRef, amount: Usd, note: z.string().optional() }),
    run: async (s, a) => s.accounts.view(await s.accounts.credit(a.account, parseUsd(a.amount)!, a.note)),
  }),
  /**
   * An account's settings: its scheduling weight, its retention of outputs, uploads and tasks (a duration, `off`, or
   * `default`: the config's).
   */
  'accounts.set': adminOp({
    args: z
      .object({
        account: AccountRef,
        weight: z.number().int().min(ACCOUNT_WEIGHT.min).max(ACCOUNT_WEIGHT.max).optional(),
        retention: z
          .object({ outputs: z.string().optional(), uploads: z.string().optional(), tasks: z.string().optional() })
          .optional(),
      })
      .refine(
        (a) => a.weight !== undefined || Object.values(a.retention ?? {}).some((v) => v !== undefined),
        'give a weight or a retention to set',
      ),
    run: async (s, a) => {
      // Retention first: its settings are checked there, and a refused one leaves the weight unchanged too (the
      // weight's schema checked it).
      let account = a.retention ? await s.accounts.setRetention(a.account, a.retention) : undefined;
      if (a.weight !== undefined) account = await s.accounts.setWeight(a.account, a.weight);
      return s.accounts.view(account ?? (await s.accounts.find(a.account)));
    },
  }),
  /** Erases an account (docs/data-lifecycle.md#erasing-an-account): answers what it removed. */
  'accounts.erase': adminOp({
    args: z.object({ account: AccountRef }),
    run: (s, a) => s.accountErase.erase(a.account),
  }),
  'accounts.list': adminOp({
    args: z.object({}),
    run: (s) => s.accounts.views(),
  }),
  'accounts.show': adminOp({
    args: z.object({ account: AccountRef }),
    run: (s, a) => s.operator.accountDetail(a.account),
  }),
};
