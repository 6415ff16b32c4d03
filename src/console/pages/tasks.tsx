/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerTasks(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/tasks', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="Tasks" session={session} active="/console/tasks">
        <EmptyState title="Nothing yet">
          <p>No tasks yet: run one from the Playground.</p>
        </EmptyState>
      </Page>,
    );
  });
}
