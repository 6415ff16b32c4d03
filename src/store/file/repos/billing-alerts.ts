import { modelOf, type TaskRecord } from '../../records/tasks.js';
import type { BillingRepo, UsageEntry } from '../../repos/billing-alerts.js';
import type { JournalEngine } from '../journal/journal-engine.js';

function usageEntryOf(task: TaskRecord): UsageEntry {
  return {
    taskId: task.id,
    settledAt: task.updatedAt,
    apiKeyId: task.apiKeyId,
    type: task.type,
    model: modelOf(task),
    cost: task.cost,
    items: task.items.filter((item) => item.status === 'success').length,
  };
}

export function createBillingRepo(engine: JournalEngine): BillingRepo {
  const { state } = engine;
  return {
    async usage(accountId, from, to) {
      const out: UsageEntry[] = [];
      for (const id of state.tasksByAccount.ids(accountId)) {
        const task = state.tasks.get(id)!;
        if (task.status === 'pending' || task.updatedAt < from || task.updatedAt >= to) continue;
        out.push(usageEntryOf(task));
      }
      return out;
    },
    async monthBudget(accountId, month) {
      const account = state.accounts.get(accountId);
      return account && { charged: state.monthlyCharges.charged(accountId, month), balance: account.balance };
    },
    async recordAlert(alert, event, deliveries) {
      // The check and the change in one synchronous step: no other call slips between them.
      if (state.billingAlerts.get(alert.id)) return false;
      await engine.commit('billingAlert.record', { alert, event, deliveries });
      return true;
    },
    async getAlert(id) {
      return state.billingAlerts.get(id);
    },
  };
}
