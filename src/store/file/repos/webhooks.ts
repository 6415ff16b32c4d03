import { applyWebhookChanges, applyWebhookHealth, type DeliveryRecord } from '../../records.js';
import type { WebhookRepo } from '../../types.js';
import type { JournalEngine } from '../journal-engine.js';

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
