/** @jsxImportSource hono/jsx */
import type { ConsoleSession } from '../../services/console-sessions.js';
import type { DestinationService, DestinationView } from '../../services/destinations.js';
import { DoneNotice } from '../components/done-notice.js';
import { PostForm } from '../components/post-form.js';
import { type Refusal, RefusalNotice } from '../components/refusal.js';
import { Table } from '../components/table.js';
import { When } from '../components/when.js';
import { EmptyState, Notice, Page } from '../layout.js';
import { DestinationForm, type DestinationFormValues, newDestinationForm } from './destination-form.js';
import { PROVIDER_NAMES } from './provider-help.js';

export type TestUpload = Awaited<ReturnType<DestinationService['test']>>;

const LEAD =
  'Destinations are where finished images are also written (a folder, an S3 bucket, an HTTP endpoint): a task names one in its destination field.';

function DestinationTable({ destinations }: { destinations: readonly DestinationView[] }) {
  return (
    <Table class="destinations" caption="Destinations" columns={['Name', 'Provider', 'Created', 'Updated']}>
      {destinations.map((destination) => (
        <tr id={`destination-${destination.id}`}>
          <th scope="row">
            <a href={`/console/destinations/${destination.id}`}>{destination.name}</a>
          </th>
          <td>{`${PROVIDER_NAMES[destination.provider.id]} (${destination.provider.id})`}</td>
          <td>
            <When at={destination.createdAt} />
          </td>
          <td>
            <When at={destination.updatedAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** The destinations page: the list and the add form (or the empty state with it). */
export function DestinationsPage(props: {
  session: ConsoleSession;
  destinations: readonly DestinationView[];
  allowedRoots: readonly string[];
  values?: DestinationFormValues;
  refusal?: Refusal;
  done?: string;
}) {
  const { session, destinations } = props;
  return (
    <Page
      title="Destinations"
      session={session}
      active="/console/destinations"
      styles={['settings.css']}
      scripts={['settings.js']}
      lead={LEAD}
    >
      <DoneNotice done={props.done} messages={{ deleted: 'The destination was deleted.' }} />
      {props.refusal && <RefusalNotice refusal={props.refusal} />}
      {destinations.length === 0 ? (
        <EmptyState title="No destinations yet">
          <p>
            Add one below, send a test upload from its page, then name it in a task's destination field to have each
            image written there too.
          </p>
        </EmptyState>
      ) : (
        <section aria-labelledby="destinations-title">
          <h2 id="destinations-title">Your destinations</h2>
          <DestinationTable destinations={destinations} />
        </section>
      )}
      <section class="panel">
        <DestinationForm
          session={session}
          values={props.values ?? newDestinationForm(props.allowedRoots)}
          allowedRoots={props.allowedRoots}
        />
      </section>
    </Page>
  );
}

function TestResult({ result }: { result: TestUpload }) {
  return (
    <Notice kind="ok">
      {`Test upload written: key ${result.key}${result.url ? `, served at ${result.url}` : ''}. `}
      {result.deleted
        ? 'The test object was deleted afterwards.'
        : `The test object could not be deleted afterwards: ${result.deleteError}`}
    </Notice>
  );
}

const DONE = { created: 'The destination was added. Send a test upload to check it.', saved: 'Saved.' } as const;

function DestinationActions({ session, destination }: { session: ConsoleSession; destination: DestinationView }) {
  const base = `/console/destinations/${destination.id}`;
  return (
    <div class="actions">
      <PostForm session={session} action={`${base}/test`}>
        <button type="submit">Send a test upload</button>
      </PostForm>
      <PostForm
        session={session}
        action={`${base}/delete`}
        confirm={`Delete the destination ${destination.name}? Tasks that name it will fail to deliver.`}
      >
        <button type="submit" class="danger">
          Delete
        </button>
      </PostForm>
    </div>
  );
}

/** One destination: its config as the service shows it (secrets masked), test upload, delete, and the edit form. */
export function DestinationPage(props: {
  session: ConsoleSession;
  destination: DestinationView;
  allowedRoots: readonly string[];
  values?: DestinationFormValues;
  refusal?: Refusal;
  done?: string;
  tested?: TestUpload;
}) {
  const { session, destination } = props;
  const values = props.values ?? {
    name: destination.name,
    provider: destination.provider.id,
    config: JSON.stringify(destination.config, null, 2),
  };
  return (
    <Page
      title={`Destination ${destination.name}`}
      session={session}
      active="/console/destinations"
      styles={['settings.css']}
      lead={`${PROVIDER_NAMES[destination.provider.id]} (${destination.provider.id})`}
    >
      <p>
        <a href="/console/destinations">All destinations</a>
      </p>
      <DoneNotice done={props.done} messages={DONE} />
      {props.refusal && <RefusalNotice refusal={props.refusal} />}
      {props.tested && <TestResult result={props.tested} />}
      <section class="panel" aria-labelledby="destination-config-title">
        <h2 id="destination-config-title">Config</h2>
        <pre>{JSON.stringify(destination.config, null, 2)}</pre>
        <p class="muted">
          Created <When at={destination.createdAt} />, updated <When at={destination.updatedAt} />.
        </p>
        <DestinationActions session={session} destination={destination} />
      </section>
      <section class="panel">
        <DestinationForm
          session={session}
          values={values}
          allowedRoots={props.allowedRoots}
          editing={{ id: destination.id, provider: destination.provider.id }}
        />
      </section>
    </Page>
  );
}
