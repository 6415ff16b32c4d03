import { randomId } from '../domain/ids.js';
import type { DeliveryRecord, EventRecord } from '../store/records.js';

/**
 * A new delivery of `event` to `url` (a dashboard webhook's, or a task's custom endpoint: webhookId null), due at once.
 */
export const newDelivery = (
  event: Pick<EventRecord, 'id' | 'accountId'>,
  url: string,
  webhookId: string | null,
  at: string,
): DeliveryRecord => ({
  id: randomId('dlv'),
  eventId: event.id,
  accountId: event.accountId,
  webhookId,
  url,
  status: 'pending',
  attempts: [],
  nextAttemptAt: at,
  createdAt: at,
  updatedAt: at,
});
