import type { ModelsParameters } from './parameter-fields.js';

/**
 * The playground's forms are data: each task type lists its fields, and one renderer draws them
 * (field-view.tsx) while one builder turns the posted text into the type's JSON body
 * (build-body.ts). A field names where its value goes in the body (`path`).
 */

/** What a form's selects offer, read from the config and the account when the page is drawn. */
export interface FormContext {
  models: string[];
  defaultModel: string;
  videoModels: string[];
  destinations: string[];
  /** The model `auto` stands for on the video form. */
  defaultVideoModel?: string;
  /** The parameters each image and video model declares (without bindings), for their fields. */
  parameters?: { models: ModelsParameters; videoModels: ModelsParameters };
}

export interface Option {
  value: string;
  label: string;
}

interface BaseField {
  /** The form field's name (unique within its form). */
  name: string;
  label: string;
  /** Where the value goes in the body: ['output', 'format'] is body.output.format. */
  path: string[];
  /** A line under the label: the format expected, or what an empty field means. */
  hint?: string;
}

export type FieldSpec =
  | (BaseField & {
      kind: 'text';
      /** Sent even when empty (so the schema names it), and marked required in the browser. */
      required?: boolean;
      multiline?: boolean;
      /** The value goes in the body as a one-entry list (a video's first frame). */
      asList?: boolean;
      /** The value of a fresh form. */
      initial?: string;
    })
  | (BaseField & { kind: 'number'; min: number; max: number; initial?: string; placeholder?: string })
  | (BaseField & {
      kind: 'select';
      options: (context: FormContext) => Option[];
      initial?: (context: FormContext) => string;
    })
  | (BaseField & { kind: 'checkbox'; value: unknown })
  /** One entry a line (URLs, criteria); `required` sends an empty list rather than nothing. */
  | (BaseField & { kind: 'lines'; required?: boolean })
  /** Rating levels, one a line as "value: description"; sent only when `when` holds for the form's fields. */
  | (BaseField & { kind: 'levels'; when: (fields: Record<string, string>) => boolean })
  /** A JSON value typed as text (metadata). */
  | (BaseField & { kind: 'json' })
  /**
   * The declared parameters of the chosen model (of `section`): a field each, drawn per model (parameter-fields.tsx).
   */
  | (BaseField & { kind: 'parameters'; section: 'models' | 'videoModels' });

/** One task type's form. */
export interface TypeForm {
  type: string;
  title: string;
  description: string;
  fields: FieldSpec[];
  /** The type's route can wait for the result (`sync`): the console never waits, it sends `sync: false`. */
  noWait?: boolean;
}

/** The form's field that carries the key the task runs as, and the one for any other field of the body. */
export const KEY_FIELD = 'key';
export const ADVANCED_FIELD = 'advanced';

/** The values a fresh form starts with. */
export function initialValues(form: TypeForm, context: FormContext): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of form.fields) {
    if (field.kind === 'select')
      values[field.name] = field.initial?.(context) ?? field.options(context)[0]?.value ?? '';
    else if ((field.kind === 'text' || field.kind === 'number') && field.initial !== undefined)
      values[field.name] = field.initial;
  }
  return values;
}
