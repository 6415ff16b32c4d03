import { applyWebhookChanges, applyWebhookHealth, type DeliveryRecord } from '../../records/webhooks.js';
import type { WebhookRepo } from '../../repos/webhooks.js';
import type { JournalEngine } from '../journal/journal-engine.js';

export function createWebhookRepo(engine: JournalEngine): WebhookRepo {
  const { state } = engine;
  return {
    async put(webhook) {
      await engine.commit('webhook.put', webhook);
      return state.webhooks.get(webhook.id)!;
    },
    // Read and commit in one tick: the commit applies to the state at once, so nothing comes between.
    async update(id, changes) {
      const webhook = state.webhooks.get(id);
      if (!webhook) return undefined;
      const next = applyWebhookChanges(webhook, changes);
      await engine.commit('webhook.put', next);
      return next;
    },
    async recordHealth(id, health) {
      const webhook = state.webhooks.get(id);
      const next = webhook && applyWebhookHealth(webhook, health);
      if (!next) return undefined;
      await engine.commit('webhook.put', next);
      return webhook.enabled && !next.enabled ? next : undefined;
    },
    async delete(id) {
      if (state.webhooks.get(id)) await engine.commit('webhook.delete', { id });
    },
    async get(id) {
      return state.webhooks.get(id);
    },
    async listByAccount(accountId) {
      return Array.from(state.webhooksByAccount.ids(accountId), (id) => state.webhooks.get(id)!);
    },
    async recordEvent(event, deliveries) {
      if (state.events.get(event.id)) return;
      await engine.commit('event.record', { event, deliveries });
    },
    async markNoEvent(taskId) {
      const task = state.tasks.get(taskId);
      if (task && !task.eventId) await engine.commit('task.noEvent', { id: taskId });
    },
    async getEvent(id) {
      return state.events.get(id);
    },
    async settledWithoutEvent() {
      return Array.from(state.settledWithoutEvent.ids, (id) => state.tasks.get(id)!);
    },
    async recordAttempt(id, attempt, status, nextAttemptAt) {
      // Its account erased while it was being sent: nothing to record it on.
      if (!state.deliveries.get(id)) throw new Error(`delivery ${id} no longer exists`);
      await engine.commit('delivery.attempt', { id, attempt, status, nextAttemptAt });
      return state.deliveries.get(id)!;
    },
    async redeliver(id, at) {
      if (!state.deliveries.get(id)) return undefined;
      await engine.commit('delivery.redeliver', { id, at });
      return state.deliveries.get(id);
    },
    async getDelivery(id) {
      return state.deliveries.get(id);
    },
    async pendingDeliveries() {
      return Array.from(state.pendingDeliveries.ids, (id) => state.deliveries.get(id)!);
    },
    async nextDeliveries(limit, skip) {
      const next: DeliveryRecord[] = [];
      if (limit <= 0) return next;
      for (const { id } of state.deliveriesByDue.entries()) {
        if (skip.has(id)) continue;
        next.push(state.deliveries.get(id)!);
        if (next.length >= limit) break;
      }
      return next;
    },
    async deliveryCounts() {
      const c = state.deliveriesByStatus;
      return { pending: c.get('pending'), delivered: c.get('delivered'), failed: c.get('failed') };
    },
    async listAll() {
      return state.webhooks.capture();
    },
    async replaceEventPayload(eventId, payload) {
      if (!state.events.get(eventId)) return false;
      await engine.commit('event.payload', { id: eventId, payload });
      return true;
    },
    async purgeDeliveries(before, limit, accountId) {
      const ids: string[] = [];
      const walk =
        accountId === undefined ? state.settledDeliveries.before('', before) : state.deliveriesByAccount.ids(accountId);
      for (const entry of walk) {
        if (ids.length >= limit) break;
        ids.push(typeof entry === 'string' ? entry : entry.id);
      }
      const gone = new Set(ids);
      const eventIds = new Set<string>();
      for (const id of ids) {
        const { eventId } = state.deliveries.peek(id)!;
        if (!eventIds.has(eventId) && state.deliveriesByEvent.ids(eventId).every((other) => gone.has(other)))
          eventIds.add(eventId);
      }
      // An erase's last batch: the account's events that never had a delivery go too.
      if (accountId !== undefined && ids.length < limit) {
        for (const eventId of state.eventsByAccount.ids(accountId))
          if (state.deliveriesByEvent.ids(eventId).length === 0) eventIds.add(eventId);
      }
      if (ids.length === 0 && eventIds.size === 0) return 0;
      await engine.commit('delivery.purge', { ids, eventIds: Array.from(eventIds) });
      return ids.length;
    },
    async deliveriesOf(webhookId, limit) {
      const ids = state.deliveriesByWebhook.ids(webhookId);
      return ids
        .slice(Math.max(0, ids.length - limit))
        .reverse()
        .map((id) => state.deliveries.get(id)!);
    },
    async deliveriesOfEvent(eventId) {
      return state.deliveriesByEvent.ids(eventId).map((id) => state.deliveries.get(id)!);
    },
  };
}
