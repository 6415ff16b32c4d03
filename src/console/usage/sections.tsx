/** @jsxImportSource hono/jsx */
import { bytesText } from '../../domain/bytes.js';
import { type StoredUsage, USAGE_GROUP_BY } from '../../services/usage.js';
import { Chart } from '../components/charts.js';
import { num, Table } from '../components/table.js';
import { usdText } from './format.js';
import { dailyChart, groupChart, keyGroupLabel, type UsageReports } from './report.js';

/** The range form (a GET: the range is in the address, so a view can be bookmarked and shared). */
export function RangeForm({ from, to }: { from: string; to: string }) {
  return (
    <form method="get" action="/console/usage" class="filters" aria-label="Range">
      <label for="usage-from">
        From (UTC day, included)
        <input id="usage-from" name="from" type="date" value={from} required />
      </label>
      <label for="usage-to">
        To (UTC day, not included)
        <input id="usage-to" name="to" type="date" value={to} required />
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

/** Links to the range's figures as CSV, one per grouping. */
function CsvLinks({ from, to }: { from: string; to: string }) {
  return (
    <section aria-labelledby="csv-title">
      <h2 id="csv-title">Export</h2>
      <ul class="actions bare">
        {USAGE_GROUP_BY.map((groupBy) => (
          <li>
            <a class="button quiet" href={`/console/usage.csv?${new URLSearchParams({ from, to, groupBy })}`} download>
              {`CSV by ${groupBy}`}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The range's totals, then charts (each with its table) per day, per key and per type. */
export function UsageFigures({ reports, from, to }: { reports: UsageReports; from: string; to: string }) {
  const { day, key, type, keys } = reports;
  return (
    <>
      <section aria-labelledby="totals-title">
        <h2 id="totals-title">Totals</h2>
        <p>
          {`${usdText(day.total.cost)} USD for ${day.total.tasks} settled task${day.total.tasks === 1 ? '' : 's'} (${day.total.items} charged item${day.total.items === 1 ? '' : 's'}), `}
          {`from ${day.from.slice(0, 10)} to ${day.to.slice(0, 10)} (not included), by the UTC time each task settled. Credits are not usage.`}
        </p>
      </section>
      <section aria-labelledby="per-day-title">
        <h2 id="per-day-title">Per day</h2>
        <Chart id="usage-day" title="Cost and tasks per day (UTC)" spec={dailyChart(day)} labelHeading="Day" />
      </section>
      <section aria-labelledby="per-key-title">
        <h2 id="per-key-title">Per key</h2>
        <Chart
          id="usage-key"
          title="Cost and tasks per key"
          spec={groupChart(key, (id) => keyGroupLabel(id, keys))}
          labelHeading="Key"
        />
      </section>
      <section aria-labelledby="per-type-title">
        <h2 id="per-type-title">Per task type</h2>
        <Chart
          id="usage-type"
          title="Cost and tasks per task type"
          spec={groupChart(type, (name) => name ?? 'other')}
          labelHeading="Type"
        />
      </section>
      <CsvLinks from={from} to={to} />
    </>
  );
}

/** What the account stores now (whatever the range): its tasks' outputs and its uploads, with the bytes of each. */
export function StoredNow({ storage }: { storage: StoredUsage }) {
  const { outputs, uploads } = storage;
  return (
    <section aria-labelledby="stored-title">
      <h2 id="stored-title">Stored now</h2>
      <p class="muted">
        Files kept for this account as of now, whatever the range. Deleting a task or an upload frees its share.
      </p>
      <Table caption="Bytes stored now" columns={['What', num('Files'), num('Size')]}>
        <tr>
          <th scope="row">Task outputs (images, videos)</th>
          <td class="num">-</td>
          <td class="num">{bytesText(outputs.bytes)}</td>
        </tr>
        <tr>
          <th scope="row">Uploaded images</th>
          <td class="num">{String(uploads.count)}</td>
          <td class="num">{bytesText(uploads.bytes)}</td>
        </tr>
        <tr>
          <th scope="row">Total</th>
          <td class="num">-</td>
          <td class="num">{bytesText(storage.bytes)}</td>
        </tr>
      </Table>
    </section>
  );
}
