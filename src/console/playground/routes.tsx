/** @jsxImportSource hono/jsx */

import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MalformedJsonError, parseRequestJson } from '../../api/json-depth.js';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { formatUsd } from '../../domain/money.js';
import type { AnyTaskType } from '../../engine/task-registry.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import type { AccountSession } from '../console-http.js';
import { accountSession, readForm, render, seeOther } from '../console-http.js';
import { notFoundAnswer } from '../error-page.js';
import type { FormIssue } from './build-body.js';
import { type FormContext, initialValues } from './field-specs.js';
import { PlaygroundPage, type PlaygroundView } from './page-view.js';
import { shownParameters } from './parameter-fields.js';
import { createFromForm, estimateFromForm } from './submit.js';
import { formFor, orderTypes } from './type-forms.js';

const statusOf = (err: AppError) => ERROR_STATUS[err.code] as ContentfulStatusCode;

/** A refusal as the form shows it; a not-found names nothing it found (the id may be another account's). */
function refusalOf(err: AppError): { code: string; message: string } {
  if (err.code === 'API_KEY_NOT_FOUND')
    return { code: err.code, message: 'this key does not exist, or it is not yours: choose one of your own keys.' };
  return { code: err.code, message: statusOf(err) === 404 ? 'it does not exist, or it is not yours.' : err.message };
}

const issuesText = (issues: FormIssue[]) => issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');

/** The playground: a form per task type, each creating a task as one of the account's keys. */
export function registerPlayground(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const formContext = async (accountId: string): Promise<FormContext> => {
    const config = deps.config.current();
    const destinations = await deps.destinations.list(accountId);
    return {
      models: Object.keys(config.models),
      defaultModel: config.defaultModel,
      videoModels: Object.keys(config.videoModels),
      defaultVideoModel: config.defaultVideoModel,
      destinations: destinations.map((d) => d.name),
      parameters: { models: shownParameters(config.models), videoModels: shownParameters(config.videoModels) },
    };
  };

  /** The page with `def`'s form: fresh, or holding what was posted with its issues or refusal. */
  const page = async (
    c: Context<ConsoleEnv>,
    session: AccountSession,
    def: AnyTaskType,
    outcome: Partial<Pick<PlaygroundView, 'values' | 'issues' | 'refusal'>> = {},
    status: ContentfulStatusCode = 200,
  ) => {
    const [keys, context] = await Promise.all([deps.apiKeys.list(session.accountId), formContext(session.accountId)]);
    const form = formFor(def.type);
    const types = orderTypes(deps.registry.list().map((d) => d.type)).map((type) => ({
      type,
      title: formFor(type).title,
    }));
    const view: PlaygroundView = {
      session,
      keys,
      types,
      form,
      scope: def.scope,
      context,
      values: outcome.values ?? initialValues(form, context),
      issues: outcome.issues,
      refusal: outcome.refusal,
    };
    return render(c, <PlaygroundPage view={view} />, status);
  };

  const typeNamed = (name: string | undefined): AnyTaskType | undefined => {
    if (name !== undefined) return deps.registry.get(name);
    return deps.registry.get(orderTypes(deps.registry.list().map((d) => d.type))[0]);
  };

  app.get('/playground', async (c) => {
    const session = accountSession(c);
    const def = typeNamed(c.req.query('type'));
    if (!def) return notFoundAnswer(c);
    return page(c, session, def);
  });

  app.post('/playground/:type', async (c) => {
    const session = accountSession(c);
    const def = deps.registry.get(c.req.param('type'));
    if (!def) return notFoundAnswer(c);
    const values = await readForm(c);
    try {
      const outcome = await createFromForm(c, deps, session, def, values);
      if ('issues' in outcome) return page(c, session, def, { values, issues: outcome.issues }, 400);
      return seeOther(c, `/console/tasks/${outcome.taskId}`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return page(c, session, def, { values, refusal: refusalOf(err) }, statusOf(err));
    }
  });

  // The page's script asks as the form changes: JSON in (the form's fields), JSON out.
  app.post('/playground/:type/estimate', async (c) => {
    const session = accountSession(c);
    const def = deps.registry.get(c.req.param('type'));
    if (!def) return c.json({ error: { code: 'NOT_FOUND', message: `no task type ${c.req.param('type')}` } }, 404);
    try {
      const fields = readFields(await c.req.text());
      const outcome = await estimateFromForm(deps, session, def, fields);
      if ('issues' in outcome)
        return c.json(
          { error: { code: 'VALIDATION_ERROR', message: issuesText(outcome.issues), issues: outcome.issues } },
          400,
        );
      return c.json({ cost: formatUsd(outcome.total) });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const { code, message } = refusalOf(err);
      return c.json({ error: { code, message } }, statusOf(err));
    }
  });
}

/** The estimate's request: a JSON object of the form's fields (text values; others are ignored). */
function readFields(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = parseRequestJson(text);
  } catch (err) {
    if (err instanceof MalformedJsonError)
      throw new AppError('VALIDATION_ERROR', 'the estimate takes a JSON object of the form’s fields');
    throw err;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new AppError('VALIDATION_ERROR', 'the estimate takes a JSON object of the form’s fields');
  const fields: Record<string, string> = Object.create(null);
  for (const [name, field] of Object.entries(value)) if (typeof field === 'string') fields[name] = field;
  return fields;
}
