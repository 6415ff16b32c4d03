/** @jsxImportSource hono/jsx */
import { CreateDestinationBody } from '../../api/routes/destinations/create.js';
import { UpdateDestinationBody } from '../../api/routes/destinations/update.js';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { DESTINATION_PROVIDERS, type DestinationProviderId } from '../../services/destination-configs.js';
import { type Refusal, schemaRefusal } from '../components/refusal.js';
import { Csrf } from '../layout.js';
import { exampleConfig, PROVIDER_NAMES, ProviderHelp } from './provider-help.js';

/** What a destination form holds, as typed: the config is JSON text (kept as typed when refused). */
export interface DestinationFormValues {
  name: string;
  provider: string;
  config: string;
}

const LABELS: Record<string, string> = {
  name: 'Name',
  'provider.id': 'Provider',
  provider: 'Provider',
  config: 'Config',
};

export const newDestinationForm = (allowedRoots: readonly string[]): DestinationFormValues => ({
  name: '',
  provider: 'local',
  config: exampleConfig('local', allowedRoots),
});

export function destinationFormValues(form: Record<string, string>): DestinationFormValues {
  return { name: (form.name ?? '').trim(), provider: form.provider ?? '', config: form.config ?? '' };
}

function parseConfig(text: string): { config: unknown } | { refused: Refusal } {
  try {
    return { config: JSON.parse(text.trim() || '{}') };
  } catch (err) {
    return {
      refused: { code: 'VALIDATION_ERROR', status: 400, lines: [`Config: not JSON (${(err as Error).message})`] },
    };
  }
}

/** POST /destinations's body, checked by its schema (the config against the provider's own). */
export function createBody(values: DestinationFormValues): { body: CreateDestinationBody } | { refused: Refusal } {
  const parsed = parseConfig(values.config);
  if ('refused' in parsed) return parsed;
  const checked = CreateDestinationBody.safeParse({
    name: values.name,
    provider: { id: values.provider },
    config: parsed.config,
  });
  return checked.success ? { body: checked.data } : { refused: schemaRefusal(checked.error, LABELS) };
}

/** PATCH /destinations/{id}'s body: the name and the whole config (masked secrets sent back keep their values). */
export function updateBody(values: DestinationFormValues): { body: UpdateDestinationBody } | { refused: Refusal } {
  const parsed = parseConfig(values.config);
  if ('refused' in parsed) return parsed;
  const checked = UpdateDestinationBody.safeParse({ name: values.name, config: parsed.config });
  return checked.success ? { body: checked.data } : { refused: schemaRefusal(checked.error, LABELS) };
}

/** The create form (provider chosen here) or the edit form of one destination (its provider fixed). */
export function DestinationForm(props: {
  session: ConsoleSession;
  values: DestinationFormValues;
  allowedRoots: readonly string[];
  editing?: { id: string; provider: DestinationProviderId };
}) {
  const { session, values, editing } = props;
  return (
    <form
      method="post"
      action={editing ? `/console/destinations/${editing.id}` : '/console/destinations'}
      class="stack"
      aria-labelledby="destination-form-title"
    >
      <h2 id="destination-form-title">{editing ? 'Edit' : 'Add a destination'}</h2>
      <Csrf session={session} />
      <label for="dst-name">Name (tasks name it in their destination field)</label>
      <input id="dst-name" name="name" required maxlength={64} value={values.name} autocomplete="off" />
      {editing ? (
        <p>{`Provider: ${PROVIDER_NAMES[editing.provider]} (${editing.provider}); a destination's provider cannot change.`}</p>
      ) : (
        <>
          <label for="dst-provider">Provider</label>
          <select id="dst-provider" name="provider">
            {DESTINATION_PROVIDERS.map((id) => (
              <option value={id} selected={values.provider === id} data-example={exampleConfig(id, props.allowedRoots)}>
                {`${PROVIDER_NAMES[id]} (${id})`}
              </option>
            ))}
          </select>
        </>
      )}
      <label for="dst-config">Config (JSON)</label>
      <textarea
        id="dst-config"
        name="config"
        class="config"
        rows={10}
        spellcheck={false}
        aria-describedby="dst-config-help"
      >
        {values.config}
      </textarea>
      <p id="dst-config-help" class="muted">
        The provider's fields, as a JSON object.
        {editing && ' Secrets show masked (****1234): sent back unchanged, they keep their stored values.'}
      </p>
      <ProviderHelp only={editing?.provider} />
      <div class="actions">
        <button type="submit">{editing ? 'Save' : 'Add destination'}</button>
      </div>
    </form>
  );
}
