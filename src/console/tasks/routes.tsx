/** @jsxImportSource hono/jsx */

import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError } from '../../domain/errors.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import type { AccountSession } from '../console-http.js';
import { accountSession, principalOf, readForm, render, seeOther } from '../console-http.js';
import { TaskDeletePage } from './delete-page.js';
import { loadInspector } from './inspector-data.js';
import { type InspectorNotice, TaskInspectorPage } from './inspector-page.js';
import { TaskListPage, TaskRows } from './list-page.js';
import { readTaskListRequest } from './list-query.js';
import { cancelTask, deleteTask, runAgain } from './task-actions.js';
import { loadTaskPage } from './task-page.js';

const TASK_ID = /^tsk_[0-9A-Za-z]+$/;

/** What a redirect after an action asks the inspector to say (`?done=`): fixed sentences, never text from the URL. */
function doneNotice(c: Context<ConsoleEnv>): InspectorNotice | undefined {
  const done = c.req.query('done');
  if (done === 'cancelled')
    return {
      kind: 'ok',
      message: 'Cancelled: its unfinished items failed with TASK_CANCELLED and their reserve was released.',
    };
  if (done === 'deleted')
    return {
      kind: 'ok',
      message: 'Deleted: its images, videos, request and result are gone; its cost and status are kept.',
    };
  const from = c.req.query('from');
  if (done === 'again' && from && TASK_ID.test(from))
    return { kind: 'ok', message: `A new task with the request of ${from}.` };
  return undefined;
}

/**
 * The inspector again, with why an action was refused and the status the API would answer; not-found and faults go on
 * to the error page.
 */
async function refused(
  c: Context<ConsoleEnv>,
  deps: ConsoleDeps,
  session: AccountSession,
  id: string,
  err: unknown,
  chosenKeyId?: string,
): Promise<Response> {
  if (!(err instanceof AppError) || err.status === 404 || err.status >= 500) throw err;
  for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
  const data = await loadInspector(deps, session, id);
  const notice: InspectorNotice = {
    kind: 'error',
    code: err.code,
    message: err.message === err.code ? 'refused' : err.message,
  };
  return render(
    c,
    <TaskInspectorPage session={session} data={data} notice={notice} chosenKeyId={chosenKeyId} />,
    err.status as ContentfulStatusCode,
  );
}

/** The tasks list (filters, cursor pages, live rows) and the task inspector (cancel, run again). */
export function registerTasks(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const listed = async (c: Context<ConsoleEnv>, session: AccountSession) => {
    const request = readTaskListRequest(new URL(c.req.url).searchParams);
    const [page, keys] = await Promise.all([
      loadTaskPage(deps, session.accountId, request),
      deps.apiKeys.list(session.accountId),
    ]);
    return { request, page, keys, status: (request.problems.length > 0 ? 400 : 200) as ContentfulStatusCode };
  };

  app.get('/tasks', async (c) => {
    const session = accountSession(c);
    const { request, page, keys, status } = await listed(c, session);
    const types = deps.registry
      .list()
      .map((def) => def.type)
      .sort();
    return render(
      c,
      <TaskListPage session={session} request={request} page={page} types={types} keys={keys} />,
      status,
    );
  });

  // Only the rows, for the live list (tasks.js swaps them into the table's body).
  app.get('/tasks/rows', async (c) => {
    const session = accountSession(c);
    const { page, keys } = await listed(c, session);
    c.header('x-task-rows', '1');
    return c.html(<TaskRows tasks={page.tasks} keys={keys} />);
  });

  app.get('/tasks/:id', async (c) => {
    const session = accountSession(c);
    const data = await loadInspector(deps, session, c.req.param('id'));
    return render(c, <TaskInspectorPage session={session} data={data} notice={doneNotice(c)} />);
  });

  app.post('/tasks/:id/cancel', async (c) => {
    const session = accountSession(c);
    const id = c.req.param('id');
    try {
      await cancelTask(deps, session, id);
    } catch (err) {
      return refused(c, deps, session, id, err);
    }
    return seeOther(c, `/console/tasks/${encodeURIComponent(id)}?done=cancelled`);
  });

  // Delete asks first, on a page of its own (a confirmation that needs no script); the form there deletes.
  app.get('/tasks/:id/delete', async (c) => {
    const session = accountSession(c);
    const id = c.req.param('id');
    const task = await deps.tasks.getOwned(principalOf(session), id);
    if (task.dataRemovedAt !== undefined) return seeOther(c, `/console/tasks/${encodeURIComponent(id)}`);
    const from = c.req.query('from') === 'gallery' ? 'gallery' : undefined;
    return render(
      c,
      <TaskDeletePage
        session={session}
        task={task}
        from={from}
        cacheMaxAgeSeconds={deps.config.current().images.cacheMaxAgeSeconds}
      />,
    );
  });

  app.post('/tasks/:id/delete', async (c) => {
    const session = accountSession(c);
    const id = c.req.param('id');
    const from = (await readForm(c)).from === 'gallery' ? 'gallery' : undefined;
    try {
      await deleteTask(deps, session, id);
    } catch (err) {
      if (!(err instanceof AppError) || err.status === 404 || err.status >= 500) throw err;
      const task = await deps.tasks.getOwned(principalOf(session), id);
      const page = (
        <TaskDeletePage
          session={session}
          task={task}
          from={from}
          cacheMaxAgeSeconds={deps.config.current().images.cacheMaxAgeSeconds}
          refused={{ code: err.code, message: err.message }}
        />
      );
      return render(c, page, err.status as ContentfulStatusCode);
    }
    return seeOther(
      c,
      from === 'gallery' ? '/console/gallery?done=deleted' : `/console/tasks/${encodeURIComponent(id)}?done=deleted`,
    );
  });

  app.post('/tasks/:id/again', async (c) => {
    const session = accountSession(c);
    const id = c.req.param('id');
    const chosenKeyId = (await readForm(c)).keyId || undefined;
    let created: { id: string };
    try {
      created = await runAgain(c, deps, session, id, chosenKeyId);
    } catch (err) {
      return refused(c, deps, session, id, err, chosenKeyId);
    }
    return seeOther(c, `/console/tasks/${created.id}?done=again&from=${encodeURIComponent(id)}`);
  });
}
