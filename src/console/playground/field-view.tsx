/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { FormIssue } from './build-body.js';
import type { FieldSpec, FormContext } from './field-specs.js';
import { ParameterFields } from './parameter-fields.js';

/** An element id of a form's field: the type's name and the field's, safe for ids and `for`. */
export const fieldId = (type: string, name: string): string => `${type.replace(/[^a-z0-9]+/gi, '-')}-${name}`;

/** The issues that concern a body path (itself or anything inside it). */
export const issuesAt = (issues: FormIssue[], path: string): FormIssue[] =>
  issues.filter((issue) => issue.path === path || issue.path.startsWith(`${path}.`));

/** The hint and the field's own issues under an input, and the ids that describe it. */
function Described({ id, hint, issues }: { id: string; hint?: string; issues: FormIssue[] }) {
  return (
    <>
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {issues.length > 0 && (
        <small id={`${id}-issue`} class="field-issue">
          {issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}
        </small>
      )}
    </>
  );
}

const describedBy = (id: string, hint: string | undefined, invalid: boolean): string | undefined =>
  [hint ? `${id}-hint` : '', invalid ? `${id}-issue` : ''].filter(Boolean).join(' ') || undefined;

/** One field of a playground form, holding `value` (what was typed, or the fresh form's value). */
export function FieldView({
  type,
  field,
  value,
  values = {},
  issues,
  context,
}: {
  type: string;
  field: FieldSpec;
  value: string;
  /** Every field's value: the parameters' fields are many. */
  values?: Record<string, string>;
  issues: FormIssue[];
  context: FormContext;
}) {
  if (field.kind === 'parameters') {
    const autoModel = field.section === 'models' ? context.defaultModel : (context.defaultVideoModel ?? '');
    return (
      <ParameterFields
        idOf={(name) => fieldId(type, name.replace(/[^a-z0-9_]+/gi, '-'))}
        models={context.parameters?.[field.section] ?? {}}
        autoModel={autoModel}
        values={values}
      />
    );
  }
  const id = fieldId(type, field.name);
  const own = issuesAt(issues, field.path.join('.'));
  const common = {
    id,
    name: field.name,
    'aria-describedby': describedBy(id, field.hint, own.length > 0),
    'aria-invalid': own.length > 0 ? 'true' : undefined,
  };
  if (field.kind === 'checkbox') {
    return (
      <div class="field check">
        <input type="checkbox" value="true" checked={value !== ''} {...common} />
        <label for={id}>{field.label}</label>
        <Described id={id} hint={field.hint} issues={own} />
      </div>
    );
  }
  let control: Child;
  switch (field.kind) {
    case 'select': {
      const options = field.options(context);
      control = (
        <select {...common}>
          {options.map((option) => (
            <option value={option.value} selected={option.value === value}>
              {option.label}
            </option>
          ))}
        </select>
      );
      break;
    }
    case 'number':
      control = (
        <input
          type="number"
          inputmode="numeric"
          step="1"
          min={field.min}
          max={field.max}
          placeholder={field.placeholder}
          value={value}
          {...common}
        />
      );
      break;
    case 'text':
      control = field.multiline ? (
        <textarea rows={3} required={field.required} {...common}>
          {value}
        </textarea>
      ) : (
        <input type="text" required={field.required} value={value} autocomplete="off" spellcheck={false} {...common} />
      );
      break;
    default:
      control = (
        <textarea
          rows={field.kind === 'json' ? 4 : 3}
          class={field.kind === 'json' ? 'code' : undefined}
          required={field.kind === 'lines' && field.required}
          spellcheck={false}
          {...common}
        >
          {value}
        </textarea>
      );
  }
  return (
    <div class="field">
      <label for={id}>{field.label}</label>
      {control}
      <Described id={id} hint={field.hint} issues={own} />
    </div>
  );
}
