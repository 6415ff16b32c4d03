/** @jsxImportSource hono/jsx */
import { Chart } from '../components/charts.js';
import { Table } from '../components/table.js';
import { DAY_TASKS_BOUND, type DayOfTasks, type Failure, hourlyByStatus } from './activity.js';

/** Tasks created in each of the last 24 hours, by status, as a chart with its table. */
export function LastDay({ day }: { day: DayOfTasks }) {
  const note = day.truncated
    ? `More than ${DAY_TASKS_BOUND.toLocaleString('en')} tasks were created in these 24 hours: the newest ${DAY_TASKS_BOUND.toLocaleString('en')} are counted.`
    : `${day.tasks.length} task${day.tasks.length === 1 ? '' : 's'} created in these 24 hours, counted by the hour they were created in and their status now.`;
  return (
    <section aria-labelledby="last-day-title">
      <h2 id="last-day-title">Tasks in the last 24 hours</h2>
      <Chart
        id="tasks-24h"
        title="Tasks by status, per hour (UTC)"
        spec={hourlyByStatus(day)}
        labelHeading="Hour"
        note={note}
      />
      <p>
        <a href="/console/tasks">All tasks</a>
      </p>
    </section>
  );
}

/** The latest failures with their codes, each linked to its task. */
export function Failures({ failures }: { failures: Failure[] }) {
  return (
    <section aria-labelledby="failures-title">
      <h2 id="failures-title">Latest failures</h2>
      {failures.length === 0 ? (
        <p class="muted">No failures.</p>
      ) : (
        <Table columns={['When (UTC)', 'Task', 'Type', 'Code', 'Message']}>
          {failures.map((failure) => (
            <tr>
              <td>
                <time datetime={failure.at}>{failure.at.replace('T', ' ').slice(0, 19)}</time>
              </td>
              <td>
                <a href={`/console/tasks/${encodeURIComponent(failure.taskId)}`} class="mono">
                  {failure.taskId}
                </a>
                {failure.item !== undefined && <span class="muted">{` item ${failure.item + 1}`}</span>}
              </td>
              <td>{failure.type}</td>
              <td>
                <span class="badge failed">{failure.code}</span>
              </td>
              <td>{failure.message ?? ''}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
