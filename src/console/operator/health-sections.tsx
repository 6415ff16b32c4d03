/** @jsxImportSource hono/jsx */
import type { ConsoleSession } from '../../services/console-sessions.js';
import { LaneTable } from './lane-table.js';
import type { OperatorView } from './operator-data.js';

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

/** Tasks and webhook deliveries waiting, the lanes (with Pause and Resume), and the failure codes of recent tasks. */
export function Queues({ dashboard, session }: Pick<OperatorView, 'dashboard'> & { session: ConsoleSession }) {
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
      <h3 id="lanes">Lanes</h3>
      <p class="muted">
        Items waiting and running in each lane, across every process on PostgreSQL. A paused lane starts nothing new:
        running items finish, new tasks are still accepted and wait. The same as <code>imgtask queues</code>.
      </p>
      {dashboard.lanes.length === 0 ? (
        <p class="muted">No lane has work queued or running, and none is paused.</p>
      ) : (
        <LaneTable lanes={dashboard.lanes} session={session} />
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
