/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { accountSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerKeys(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/keys', (c) => {
    const session = accountSession(c);
    return render(
      c,
      <Page title="API keys" session={session} active="/console/keys">
        <EmptyState title="Nothing yet">
          <p>No keys yet.</p>
        </EmptyState>
      </Page>,
    );
  });
}
