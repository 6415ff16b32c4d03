import type { ApiKeyView } from '../../services/api-keys.js';

/** A decimal USD string as people read money: at least two decimals ("3.2" → "3.20"), a finer charge kept ("0.001"). */
export function usdText(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** What a key is called on a page: its name, else its preview (keys need not have a name). */
export const keyLabel = (key: Pick<ApiKeyView, 'name' | 'keyPreview'>): string => key.name ?? key.keyPreview;

/** Usage of no key: tasks made with an access token (rate, alt and remove background take one). */
export const NO_KEY_LABEL = 'No key (access token)';

/** The words for a spending limit's period, as "… this week" reads. */
export const PERIOD_WORDS = { day: 'today', week: 'this week', month: 'this month' } as const;
