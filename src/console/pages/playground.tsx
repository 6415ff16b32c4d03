/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerPlayground(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/playground', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="Playground" session={session} active="/console/playground">
        <EmptyState title="Nothing yet">
          <p>Pick a task type to try.</p>
        </EmptyState>
      </Page>,
    );
  });
}
