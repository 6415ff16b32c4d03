/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerOverview(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="Overview" session={session} active="/console">
        <EmptyState title="Nothing yet">
          <p>Your balance, spend and recent tasks will show here.</p>
        </EmptyState>
      </Page>,
    );
  });
}
