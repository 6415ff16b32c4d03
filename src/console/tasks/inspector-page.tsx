/** @jsxImportSource hono/jsx */
import type { ConsoleSession } from '../../services/console-sessions.js';
import { Notice, Page } from '../layout.js';
import { TaskActions } from './action-buttons.js';
import { CostText, itemCounts, Json, KeyLabel, StatusBadge, When } from './format.js';
import type { InspectorData } from './inspector-data.js';
import { ItemsTable, LiveProgress } from './items-table.js';
import { TaskEvents } from './task-events.js';

/** A line above the inspector: what an action did, or why it was refused (its code and reason, as text). */
export interface InspectorNotice {
  kind: 'ok' | 'error';
  code?: string;
  message: string;
}

function Summary({ data }: { data: InspectorData }) {
  const { task, keys } = data;
  const counts = itemCounts(task);
  return (
    <dl class="facts task-facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={task.status} />
      </dd>
      <dt>Type</dt>
      <dd>{task.type}</dd>
      <dt>Cost (USD)</dt>
      <dd>
        <CostText task={task} />
      </dd>
      <dt>Key</dt>
      <dd>
        <KeyLabel keyId={task.apiKeyId} keys={keys} />
      </dd>
      <dt>Created</dt>
      <dd>
        <When at={task.createdAt} />
      </dd>
      <dt>{task.status === 'pending' ? 'Last change' : 'Settled'}</dt>
      <dd>
        <When at={task.updatedAt} />
      </dd>
      <dt>Items</dt>
      <dd>{`${counts.succeeded} succeeded, ${counts.failed} failed, of ${counts.total}`}</dd>
      {task.dataRemovedAt !== undefined && (
        <>
          <dt>Data deleted</dt>
          <dd>
            <When at={task.dataRemovedAt} />
          </dd>
        </>
      )}
    </dl>
  );
}

/** A failed task's errors: each code and its message. */
function TaskErrors({ errors }: { errors: { code: string; message?: string }[] }) {
  return (
    <section aria-labelledby="errors-heading">
      <h2 id="errors-heading">Errors</h2>
      {errors.length === 0 ? (
        <p class="muted">It failed without an error code.</p>
      ) : (
        <ul class="task-errors">
          {errors.map((error) => (
            <li>
              <code>{error.code}</code>
              {error.message ? `: ${error.message}` : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

interface InspectorProps {
  session: ConsoleSession;
  data: InspectorData;
  notice?: InspectorNotice;
  /** The key chosen in a refused run-again form. */
  chosenKeyId?: string;
}

/**
 * GET /console/tasks/{id}: the task, its request and result, each item, its live progress, the events sent, and cancel
 * / run again.
 */
export function TaskInspectorPage({ session, data, notice, chosenKeyId }: InspectorProps) {
  const { task, live } = data;
  return (
    <Page
      title={`Task ${task.id}`}
      session={session}
      active="/console/tasks"
      scripts={['tasks.js']}
      styles={['tasks.css']}
    >
      <p>
        <a href="/console/tasks">Back to the tasks</a>
      </p>
      {notice && (
        <Notice kind={notice.kind}>
          {notice.code && <strong>{notice.code}</strong>}
          {notice.code ? `: ${notice.message}` : notice.message}
        </Notice>
      )}
      <Summary data={data} />
      <TaskActions session={session} task={task} keys={data.keys} chosenKeyId={chosenKeyId} />
      {live && <LiveProgress progress={live.progress} eventsUrl={live.eventsUrl} />}
      {task.status === 'failed' && <TaskErrors errors={task.errors ?? []} />}
      <section aria-labelledby="items-heading">
        <h2 id="items-heading">Items</h2>
        <ItemsTable task={task} progress={live?.progress} outputs={data.outputs} verdicts={data.verdicts} />
      </section>
      {task.dataRemovedAt !== undefined ? (
        <section aria-labelledby="request-heading">
          <h2 id="request-heading">Request and result</h2>
          <p class="muted">
            Deleted: its outputs, request, metadata and result are gone. What is shown above is what accounting keeps.
          </p>
        </section>
      ) : (
        <>
          <section aria-labelledby="request-heading">
            <h2 id="request-heading">Request</h2>
            <p class="muted">As submitted (what the task keeps of it).</p>
            <Json value={task.request} />
          </section>
          <section aria-labelledby="result-heading">
            <h2 id="result-heading">Result</h2>
            {task.status === 'pending' ? (
              <p class="muted">None yet: the result comes when the task settles.</p>
            ) : (
              <Json value={task.result ?? null} />
            )}
          </section>
        </>
      )}
      <TaskEvents task={task} sent={data.sent} />
    </Page>
  );
}
