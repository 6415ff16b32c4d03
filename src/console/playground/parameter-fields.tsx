/** @jsxImportSource hono/jsx */
import type { ModelParameter } from '../../domain/model-parameters.js';

/** A declared parameter as the playground draws it: what GET /models shows, never the binding. */
export type ShownParameter = Omit<ModelParameter, 'binding'>;
/** Each model's parameters, by model id (models without any are left out). */
export type ModelsParameters = Readonly<Record<string, Readonly<Record<string, ShownParameter>>>>;

/** The parameters a config's models declare, without their bindings. */
export function shownParameters(
  models: Readonly<Record<string, { parameters?: Readonly<Record<string, ModelParameter>> }>>,
): ModelsParameters {
  const shown: Record<string, Record<string, ShownParameter>> = {};
  for (const [id, model] of Object.entries(models)) {
    if (!model.parameters || Object.keys(model.parameters).length === 0) continue;
    shown[id] = Object.fromEntries(
      Object.entries(model.parameters).map(([name, { binding: _binding, ...rest }]) => [name, rest]),
    );
  }
  return shown;
}

// A parameter's form field is named "parameter:<model>:<name>:<n|b|s>": the last part says how its text becomes JSON.
const FIELD = /^parameter:([^:]+):([^:]+):([nbs])$/;
const kindOf = (parameter: ShownParameter) =>
  parameter.type === 'integer' || parameter.type === 'number' ? 'n' : parameter.type === 'boolean' ? 'b' : 's';
const fieldName = (model: string, name: string, parameter: ShownParameter) =>
  `parameter:${model}:${name}:${kindOf(parameter)}`;
/** The hidden field holding the model `auto` stands for, so the body can take that model's parameters. */
export const AUTO_MODEL_FIELD = 'parameters_auto';

/**
 * The body's `parameters` from the posted form: the fields of the chosen model that are not empty; undefined when there
 * are none.
 */
export function parametersFromForm(fields: Record<string, string>): Record<string, unknown> | undefined {
  const chosen = !fields.model || fields.model === 'auto' ? fields[AUTO_MODEL_FIELD] : fields.model;
  const parameters: Record<string, unknown> = {};
  for (const [field, text] of Object.entries(fields)) {
    const match = FIELD.exec(field);
    if (!match || match[1] !== chosen || text.trim() === '') continue;
    const [, , name, kind] = match;
    // Numbers as numbers, true/false as booleans; anything else stays text, for the check to name.
    const value =
      kind === 'n' && text.trim() !== '' && Number.isFinite(Number(text))
        ? Number(text)
        : kind === 'b' && (text === 'true' || text === 'false')
          ? text === 'true'
          : text;
    Object.defineProperty(parameters, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

function ParameterInput({
  id,
  name,
  parameter,
  value,
}: {
  id: string;
  name: string;
  parameter: ShownParameter;
  value: string;
}) {
  const fallback = `default (${String(parameter.default)})`;
  if (parameter.type === 'enum' || parameter.type === 'boolean') {
    const choices = parameter.type === 'enum' ? (parameter.values ?? []) : ['true', 'false'];
    return (
      <select id={id} name={name}>
        <option value="" selected={value === ''}>
          {fallback}
        </option>
        {choices.map((choice) => (
          <option value={choice} selected={choice === value}>
            {choice}
          </option>
        ))}
      </select>
    );
  }
  if (parameter.type === 'string')
    return (
      <input
        type="text"
        id={id}
        name={name}
        maxlength={parameter.maxLength}
        placeholder={fallback}
        value={value}
        autocomplete="off"
      />
    );
  return (
    <input
      type="number"
      id={id}
      name={name}
      step={parameter.type === 'integer' ? '1' : 'any'}
      min={parameter.min}
      max={parameter.max}
      placeholder={fallback}
      value={value}
    />
  );
}

/**
 * One fieldset per model with parameters: each field sent only when its model is the one chosen; empty keeps the
 * default.
 */
export function ParameterFields({
  idOf,
  models,
  autoModel,
  values,
}: {
  idOf: (name: string) => string;
  models: ModelsParameters;
  autoModel: string;
  values: Record<string, string>;
}) {
  return (
    <>
      <input type="hidden" name={AUTO_MODEL_FIELD} value={autoModel} />
      {Object.entries(models).map(([model, parameters]) => (
        <fieldset class="parameters">
          <legend>Parameters of {model}</legend>
          <small class="hint">Sent only when {model} is the model (or auto stands for it); empty: the default.</small>
          {Object.entries(parameters).map(([name, parameter]) => {
            const field = fieldName(model, name, parameter);
            const id = idOf(field);
            return (
              <div class="field">
                <label for={id}>{name}</label>
                <ParameterInput id={id} name={field} parameter={parameter} value={values[field] ?? ''} />
                {(parameter.description || parameter.price) && (
                  <small class="hint">
                    {[
                      parameter.description,
                      parameter.price && `adds ${parameter.price.perUnit} USD per unit to the price`,
                    ]
                      .filter(Boolean)
                      .join('; ')}
                  </small>
                )}
              </div>
            );
          })}
        </fieldset>
      ))}
    </>
  );
}
