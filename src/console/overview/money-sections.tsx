/** @jsxImportSource hono/jsx */
import { parseUsd } from '../../domain/money.js';
import type { AccountView } from '../../services/accounts.js';
import { PERIOD_WORDS, usdText } from '../usage/format.js';
import type { KeyLimit, PeriodSpend } from './spend.js';

function Card({ label, value }: { label: string; value: string }) {
  return (
    <div class="card">
      <div class="label">{label}</div>
      <div class="value">{value}</div>
    </div>
  );
}

/** The account's money: balance, what pending tasks hold, and what is left to start new ones. */
export function Balance({ account }: { account: AccountView }) {
  return (
    <section aria-labelledby="balance-title">
      <h2 id="balance-title">Balance</h2>
      <div class="cards">
        <Card label="Balance (USD)" value={usdText(account.balance)} />
        <Card label="Reserved by pending tasks (USD)" value={usdText(account.reserved)} />
        <Card label="Available (USD)" value={usdText(account.available)} />
      </div>
    </section>
  );
}

/** Charges today, this ISO week and this month (UTC), then each limited key's spend against its limit. */
export function Spend({ spend, limits }: { spend: PeriodSpend | null; limits: KeyLimit[] }) {
  return (
    <section aria-labelledby="spend-title">
      <h2 id="spend-title">Spend</h2>
      {spend ? (
        <div class="cards">
          <Card label="Today (USD, UTC)" value={usdText(spend.today)} />
          <Card label="This week, from Monday (USD)" value={usdText(spend.week)} />
          <Card label="This month (USD)" value={usdText(spend.month)} />
        </div>
      ) : (
        <p class="muted">Charges by period need the manage scope, which this session does not hold.</p>
      )}
      <p>
        <a href="/console/usage">Usage by day, key and type</a>
      </p>
      <h3>Keys with a spending limit</h3>
      {limits.length === 0 ? (
        <p class="muted">
          No key has a spending limit. <a href="/console/keys">Set one on the keys page</a>.
        </p>
      ) : (
        <ul class="limits">
          {limits.map((key, index) => (
            <KeyLimitLine entry={key} index={index} />
          ))}
        </ul>
      )}
    </section>
  );
}

function KeyLimitLine({ entry, index }: { entry: KeyLimit; index: number }) {
  const id = `key-limit-${index}`;
  const limit = parseUsd(entry.limit)! / 1e6;
  return (
    <li>
      <span id={id}>
        <strong>{entry.label}</strong>
        {`: ${usdText(entry.spend)} of ${usdText(entry.limit)} USD ${PERIOD_WORDS[entry.period]} (charged and reserved)`}
      </span>
      <meter
        aria-labelledby={id}
        min={0}
        max={limit}
        high={limit * 0.8}
        optimum={0}
        value={Math.min(parseUsd(entry.spend)! / 1e6, limit)}
      />
    </li>
  );
}
