/** @jsxImportSource hono/jsx */
import type { OperatorView } from './load.js';

/** The doctor's verdict on the ledger, the storage and the engines, with each problem. */
export function Doctor({ doctor }: { doctor: OperatorView['doctor'] }) {
  return (
    <section aria-labelledby="doctor-title">
      <h2 id="doctor-title">Doctor</h2>
      {doctor.ok ? (
        <p>
          <span class="status-ok">OK</span>: the checks of <code>imgtask doctor</code> found no problem.
        </p>
      ) : (
        <>
          <p>
            <span class="status-bad">Problems found</span> by the checks of <code>imgtask doctor</code>:
          </p>
          <ul>
            {doctor.problems.map((problem) => (
              <li>{problem}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Count({ label, value }: { label: string; value: number }) {
  return (
    <div class="card">
      <div class="label">{label}</div>
      <div class="value">{String(value)}</div>
    </div>
  );
}

/** Tasks and webhook deliveries waiting, this process's lanes, and the failure codes of recent tasks. */
export function Queues({ dashboard, lanes }: Pick<OperatorView, 'dashboard' | 'lanes'>) {
  return (
    <section aria-labelledby="queues-title">
      <h2 id="queues-title">Queues</h2>
      <div class="cards">
        <Count label="Tasks pending" value={dashboard.counts.pending} />
        <Count label="Tasks completed" value={dashboard.counts.completed} />
        <Count label="Tasks failed" value={dashboard.counts.failed} />
        <Count label="Settled in the last minute" value={dashboard.throughputPerMinute} />
        <Count label="Webhook deliveries pending" value={dashboard.webhooks.pending} />
        <Count label="Webhook deliveries failed" value={dashboard.webhooks.failed} />
      </div>
      <h3>Lanes of this process</h3>
      {lanes.length === 0 ? (
        <p class="muted">No lane has run an item in this process yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Lane</th>
                <th scope="col" class="num">
                  Running
                </th>
                <th scope="col" class="num">
                  Queued
                </th>
                <th scope="col" class="num">
                  Slots
                </th>
              </tr>
            </thead>
            <tbody>
              {lanes.map((lane) => (
                <tr>
                  <th scope="row">{lane.lane}</th>
                  <td class="num">{String(lane.running)}</td>
                  <td class="num">{String(lane.queued)}</td>
                  <td class="num">{String(lane.concurrency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {dashboard.failures.length > 0 && (
        <>
          <h3>Failure codes of the newest tasks</h3>
          <ul>
            {dashboard.failures.map((failure) => (
              <li>
                <span class="badge failed">{failure.code}</span> {`× ${failure.count}`}
              </li>
            ))}
          </ul>
        </>
      )}
      {dashboard.webhooks.disabled.length > 0 && (
        <>
          <h3>Webhooks disabled</h3>
          <ul>
            {dashboard.webhooks.disabled.map((webhook) => (
              <li>
                <span class="mono">{webhook.url}</span>
                {`: ${webhook.reason}`}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
