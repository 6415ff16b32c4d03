import { AppError } from '../../domain/errors.js';

/**
 * Why deliveries to a URL can never be made under the config in force (webhooks/target-check.ts), or null; none: only
 * the scheme is checked.
 */
export type WebhookUrlCheck = (url: string) => string | null;

/**
 * The refusal of a webhook URL (a dashboard webhook's, or a task's `webhook.custom` entry at
 * `field`) the service may never send to: 400, naming the reason and where a local receiver fits.
 */
export function unreachableWebhookUrl(url: string, reason: string, field?: string): AppError {
  const where = field ? `${field}: ` : '';
  return new AppError(
    'VALIDATION_ERROR',
    `${where}${url} would never be delivered to: ${reason}. For a receiver on your own machine, use \`imgtask webhooks listen --forward-to URL\``,
  );
}

const isHttpUrl = (url: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
};

/**
 * Refuses a dashboard webhook's URL when given, not at every delivery: nothing is created that could only ever fail.
 */
export function checkWebhookUrl(url: string, check: WebhookUrlCheck | undefined): void {
  if (!isHttpUrl(url)) throw new AppError('VALIDATION_ERROR', 'a webhook URL must be http or https');
  const refusal = check?.(url);
  if (refusal) throw unreachableWebhookUrl(url, refusal);
}
