/** @jsxImportSource hono/jsx */
import type { TaskRecord } from '../../engine/task-registry.js';
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { num, Table } from '../components/table.js';
import { EmptyState, Notice, Page } from '../layout.js';
import { TaskFiltersForm } from './filters-form.js';
import { CostText, itemCounts, KeyLabel, StatusBadge, When } from './format.js';
import { hasFilters, searchOf, type TaskFilters, type TaskListRequest } from './list-query.js';
import type { TaskPage } from './task-page.js';

const COLUMNS = 7;

/** One task as a row of the list: the id links to its inspector. */
function TaskRow({ task, keys }: { task: TaskRecord; keys: readonly ApiKeyView[] }) {
  const counts = itemCounts(task);
  return (
    <tr data-status={task.status}>
      <th scope="row">
        <a href={`/console/tasks/${task.id}`}>
          <code>{task.id}</code>
        </a>
      </th>
      <td>{task.type}</td>
      <td>
        <StatusBadge status={task.status} />
      </td>
      <td>
        <KeyLabel keyId={task.apiKeyId} keys={keys} />
      </td>
      <td>
        <When at={task.createdAt} />
      </td>
      <td class="num">
        <CostText task={task} />
      </td>
      <td class="num">{`${counts.succeeded} / ${counts.failed} of ${counts.total}`}</td>
    </tr>
  );
}

/** The rows of a page: what the list's tbody holds, and what GET /console/tasks/rows answers for the live list. */
export function TaskRows({ tasks, keys }: { tasks: readonly TaskRecord[]; keys: readonly ApiKeyView[] }) {
  if (tasks.length === 0) {
    return (
      <tr>
        <td colspan={COLUMNS}>No tasks match these filters.</td>
      </tr>
    );
  }
  return (
    <>
      {tasks.map((task) => (
        <TaskRow task={task} keys={keys} />
      ))}
    </>
  );
}

/** "Newest", "Newer" and "Older": cursor paging, the filters kept. */
function Pager({ filters, page, atCursor }: { filters: TaskFilters; page: TaskPage; atCursor: boolean }) {
  if (!atCursor && !page.older) return null;
  return (
    <nav class="pager" aria-label="Pages of tasks">
      {atCursor && !page.newest && <a href={`/console/tasks${searchOf(filters)}`}>Newest</a>}
      {page.newer && !page.newest && (
        <a href={`/console/tasks${searchOf(filters, { after: page.newer })}`} rel="prev">
          Newer
        </a>
      )}
      {page.older && (
        <a href={`/console/tasks${searchOf(filters, { before: page.older })}`} rel="next">
          Older
        </a>
      )}
    </nav>
  );
}

interface TaskListProps {
  session: ConsoleSession;
  request: TaskListRequest;
  page: TaskPage;
  types: readonly string[];
  keys: readonly ApiKeyView[];
}

/** GET /console/tasks: the filters, the table (refreshed live by tasks.js), the pager. */
export function TaskListPage({ session, request, page, types, keys }: TaskListProps) {
  const { filters } = request;
  const atCursor = Boolean(request.before || request.after);
  const nothingYet = page.tasks.length === 0 && !atCursor && !hasFilters(filters) && request.problems.length === 0;
  return (
    <Page
      title="Tasks"
      session={session}
      active="/console/tasks"
      scripts={['tasks.js']}
      styles={['tasks.css']}
      lead="Every task of this account, newest first."
    >
      {request.problems.length > 0 && (
        <Notice kind="error">
          <strong>VALIDATION_ERROR</strong>: these filters were left out:
          <ul>
            {request.problems.map((problem) => (
              <li>{problem}</li>
            ))}
          </ul>
        </Notice>
      )}
      {nothingYet ? (
        <EmptyState title="No tasks yet">
          <p>
            Tasks show up here as they are created, through the API or from the console. Run one from the{' '}
            <a href="/console/playground">Playground</a>.
          </p>
        </EmptyState>
      ) : (
        <>
          <TaskFiltersForm filters={filters} types={types} keys={keys} />
          <Table
            class="task-list"
            caption="Tasks, newest first"
            columns={['Task', 'Type', 'Status', 'Key', 'Created', num('Cost (USD)'), num('Items succeeded / failed')]}
            body={{
              id: 'task-rows',
              'data-rows': `/console/tasks/rows${searchOf(filters, page.newest ? {} : request)}`,
              'data-newest': page.newest ? 'true' : 'false',
            }}
          >
            <TaskRows tasks={page.tasks} keys={keys} />
          </Table>
          <Pager filters={filters} page={page} atCursor={atCursor} />
        </>
      )}
    </Page>
  );
}
