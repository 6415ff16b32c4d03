/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { ConsoleDeps, ConsoleEnv } from '../deps.js';
import { operatorSession, render } from '../http.js';
import { EmptyState, Page } from '../layout.js';

export function registerOperator(app: Hono<ConsoleEnv>, _deps: ConsoleDeps): void {
  app.get('/operator', (c) => {
    const session = operatorSession(c);
    return render(
      c,
      <Page title="Operator" session={session} active="/console/operator">
        <EmptyState title="Nothing yet">
          <p>Accounts, keys, doctor status and queue depths will show here.</p>
        </EmptyState>
      </Page>,
    );
  });
}
