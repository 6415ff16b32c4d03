/** @jsxImportSource hono/jsx */
import type { ApiKeyView } from '../../services/api-keys.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { Csrf, EmptyState, Notice, Page } from '../layout.js';
import type { FormIssue } from './build-body.js';
import { CANCEL_AFTER_FIELD } from './cancel-after-field.js';
import { ADVANCED_FIELD, type FormContext, KEY_FIELD, type TypeForm } from './field-specs.js';
import { FieldView, fieldId, issuesAt } from './field-view.js';

/** What the playground page shows: the types, the chosen type's form, and what the last post left. */
export interface PlaygroundView {
  session: ConsoleSession;
  keys: ApiKeyView[];
  types: { type: string; title: string }[];
  form: TypeForm;
  /** The scope the chosen type needs of a key. */
  scope: string;
  context: FormContext;
  /** The form's values: what was posted, or a fresh form's. */
  values: Record<string, string>;
  issues?: FormIssue[];
  /** A refusal of the service (code and message), as the API would answer it. */
  refusal?: { code: string; message: string };
}

export const playgroundPath = (type: string): string => `/console/playground?type=${encodeURIComponent(type)}`;

function TypeNavigation({ types, current }: { types: PlaygroundView['types']; current: string }) {
  return (
    <nav aria-label="Task types" class="type-picker">
      <ul>
        {types.map(({ type, title }) => (
          <li>
            <a href={playgroundPath(type)} aria-current={type === current ? 'page' : undefined}>
              {title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The key the task runs as: the first one with the type's scope unless one was chosen. */
function KeySelect({ type, keys, scope, chosen }: { type: string; keys: ApiKeyView[]; scope: string; chosen: string }) {
  const id = fieldId(type, KEY_FIELD);
  const selected = chosen || (keys.find((key) => key.scopes.includes(scope)) ?? keys[0]).id;
  return (
    <div class="field">
      <label for={id}>Run as key</label>
      <select id={id} name={KEY_FIELD} aria-describedby={`${id}-hint`} required>
        {keys.map((key) => (
          <option value={key.id} selected={key.id === selected}>
            {`${key.name ?? 'unnamed'} (${key.keyPreview})${key.scopes.includes(scope) ? '' : ` (lacks ${scope})`}`}
          </option>
        ))}
      </select>
      <small id={`${id}-hint`} class="hint">
        The task runs as this key: its scopes, spending limit and request rate apply, and its usage counts the task.
      </small>
    </div>
  );
}

function Issues({ issues }: { issues: FormIssue[] }) {
  return (
    <Notice kind="error">
      <p>
        <strong>VALIDATION_ERROR</strong>: the request was not sent. Fix these fields:
      </p>
      <ul>
        {issues.map((issue) => (
          <li>
            <code>{issue.path}</code>: {issue.message}
          </li>
        ))}
      </ul>
    </Notice>
  );
}

function TypeFormView({ view }: { view: PlaygroundView }) {
  const { form, values, context } = view;
  const issues = view.issues ?? [];
  const advancedId = fieldId(form.type, ADVANCED_FIELD);
  const advancedIssues = issuesAt(issues, 'advanced JSON body');
  const advanced = values[ADVANCED_FIELD] ?? '';
  const estimateId = fieldId(form.type, 'estimate');
  return (
    <section class="panel" aria-labelledby="playground-form-title">
      <h2 id="playground-form-title">
        {form.title} <code class="type-name">{form.type}</code>
      </h2>
      <p class="muted">{form.description}</p>
      {view.refusal && (
        <Notice kind="error">
          <strong>{view.refusal.code}</strong>: {view.refusal.message}
        </Notice>
      )}
      {issues.length > 0 && <Issues issues={issues} />}
      <form
        method="post"
        action={`/console/playground/${encodeURIComponent(form.type)}`}
        class="stack playground"
        data-estimate-url={`/console/playground/${encodeURIComponent(form.type)}/estimate`}
        data-estimate-output={estimateId}
      >
        <Csrf session={view.session} />
        <KeySelect type={form.type} keys={view.keys} scope={view.scope} chosen={values[KEY_FIELD] ?? ''} />
        {form.fields.map((field) => (
          <FieldView
            type={form.type}
            field={field}
            value={values[field.name] ?? ''}
            values={values}
            issues={issues}
            context={context}
          />
        ))}
        <FieldView
          type={form.type}
          field={CANCEL_AFTER_FIELD}
          value={values[CANCEL_AFTER_FIELD.name] ?? ''}
          issues={issues}
          context={context}
        />
        <details open={form.fields.length === 0 || advanced.trim() !== '' || advancedIssues.length > 0}>
          <summary>Advanced: JSON body</summary>
          <div class="field">
            <label for={advancedId}>{form.fields.length > 0 ? 'JSON merged over the fields above' : 'JSON body'}</label>
            <textarea
              id={advancedId}
              name={ADVANCED_FIELD}
              rows={6}
              class="code"
              spellcheck={false}
              aria-describedby={`${advancedId}-hint`}
              aria-invalid={advancedIssues.length > 0 ? 'true' : undefined}
            >
              {advanced}
            </textarea>
            <small id={`${advancedId}-hint`} class="hint">
              Any field of the body the form lacks, such as <code>{'{"webhook": {"dashboard": true}}'}</code>; its
              values win over the form's.
            </small>
          </div>
        </details>
        <p id={estimateId} class="estimate" aria-live="polite">
          The cost shows on the task once it is created.
        </p>
        <div class="actions">
          <button type="submit">Create task</button>
        </div>
      </form>
    </section>
  );
}

/** The playground: pick a type, fill its form, create the task as one of the account's keys. */
export function PlaygroundPage({ view }: { view: PlaygroundView }) {
  return (
    <Page
      title="Playground"
      session={view.session}
      active="/console/playground"
      scripts={['playground.js']}
      styles={['playground.css']}
      lead="Try a task type as one of your keys, see what it will cost, then follow the task live."
    >
      {view.keys.length === 0 ? (
        <EmptyState title="No API key yet">
          <p>
            A playground task runs as one of your API keys, with its scopes and limits. This account has no live key.
          </p>
          <p>
            <a href="/console/keys">Create a key</a>, then come back here.
          </p>
        </EmptyState>
      ) : (
        <>
          <TypeNavigation types={view.types} current={view.form.type} />
          <TypeFormView view={view} />
        </>
      )}
    </Page>
  );
}
