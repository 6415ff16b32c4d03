/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { CHART_ASSETS } from '../components/charts.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import { render } from '../console-http.js';
import { accountHolder } from '../key-principal.js';
import { EmptyState, Notice, Page } from '../layout.js';
import { usageCsv, usageCsvName } from './csv.js';
import { defaultRange, rangeOf } from './range.js';
import { loadReports, type UsageReports } from './report.js';
import { RangeForm, StoredNow, UsageFigures } from './sections.js';

function Figures({ reports, from, to }: { reports: UsageReports; from: string; to: string }) {
  if (reports.day.total.tasks === 0) {
    return (
      <>
        <EmptyState title="No usage in this range">
          <p>
            Usage counts tasks when they settle. Run one from the <a href="/console/playground">Playground</a>, or pick
            an earlier range.
          </p>
        </EmptyState>
        <StoredNow storage={reports.day.storage} />
      </>
    );
  }
  return (
    <>
      <UsageFigures reports={reports} from={from} to={to} />
      <StoredNow storage={reports.day.storage} />
    </>
  );
}

/**
 * `GET /console/usage` (charts per day, key and type, with tables) and `GET /console/usage.csv` (the same figures to
 * download).
 */
export function registerUsage(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  /** The signed-in account, holding the scope GET /usage needs (manage). */
  const usageSession = accountHolder(deps, 'manage');
  app.get('/usage', async (c) => {
    const session = usageSession(c);
    const query = c.req.query();
    const defaults = defaultRange(deps.clock.now());
    const typed = { from: query.from ?? defaults.from, to: query.to ?? defaults.to };
    const page = (content: Child, status: ContentfulStatusCode = 200, from = typed.from, to = typed.to) =>
      render(
        c,
        <Page
          title="Usage"
          session={session}
          active="/console/usage"
          {...CHART_ASSETS}
          lead="Spend and task counts, from the ledger, and the bytes stored now"
        >
          <RangeForm from={from} to={to} />
          {content}
        </Page>,
        status,
      );
    try {
      const range = rangeOf(query, deps.clock.now());
      const reports = await loadReports(deps, session.accountId, range);
      return page(<Figures reports={reports} from={range.from} to={range.to} />, 200, range.from, range.to);
    } catch (err) {
      // A range the service refuses: the page again, with the reason and what was typed.
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      return page(
        <Notice kind="error">
          <strong>{err.code}</strong>
          {`: ${err.message}`}
        </Notice>,
        ERROR_STATUS[err.code] as ContentfulStatusCode,
      );
    }
  });

  app.get('/usage.csv', async (c) => {
    const session = usageSession(c);
    const range = rangeOf(c.req.query(), deps.clock.now());
    const [report, keys] = await Promise.all([
      deps.usage.report(session.accountId, range),
      deps.apiKeys.list(session.accountId),
    ]);
    return c.body(usageCsv(report, new Map(keys.map((key) => [key.id, key]))), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${usageCsvName(report)}"`,
    });
  });
}
