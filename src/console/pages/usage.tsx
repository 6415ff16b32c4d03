/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerUsage(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/usage', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="Usage" session={session} active="/console/usage">
        <EmptyState title="Nothing yet">
          <p>No usage yet.</p>
        </EmptyState>
      </Page>,
    );
  });
}
