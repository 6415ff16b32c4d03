/** @jsxImportSource hono/jsx */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { AppError, ERROR_STATUS } from '../../domain/errors.js';
import { Notice } from '../layout.js';

/**
 * Why a settings form (keys, webhooks, destinations) was refused: shown above the form it came
 * from, which is rendered again with what the user typed, with the status the API would answer.
 */
export interface Refusal {
  code: string;
  status: ContentfulStatusCode;
  /** One line per problem, as text. */
  lines: string[];
}

/** The issues of a route's body schema, each naming the form field (by its label) it is about. */
export function schemaRefusal(error: ZodError, labels: Record<string, string> = {}): Refusal {
  const lines = error.issues.map((issue) => {
    const path = issue.path.map(String);
    const [first = '', ...rest] = path;
    // A field inside a labelled one (config.bucket) is named by the label and the rest of its path.
    const label = labels[path.join('.')] ?? (labels[first] ? [labels[first], ...rest].join(' ') : path.join('.'));
    return label ? `${label}: ${issue.message}` : issue.message;
  });
  return { code: 'VALIDATION_ERROR', status: 400, lines };
}

/**
 * A service's refusal to show on the form. Not-found refusals (another account's id) and
 * anything that is not an AppError are thrown on, so the console's error page answers them.
 */
export function serviceRefusal(err: unknown): Refusal {
  if (!(err instanceof AppError)) throw err;
  const status = (err.statusOverride ?? ERROR_STATUS[err.code]) as ContentfulStatusCode;
  // Of the 5xx answers only a storage's own refusal of a test upload is shown on the form; the rest are faults.
  const shown = status < 500 ? status !== 404 : err.code === 'DESTINATION_TEST_FAILED';
  if (!shown) throw err;
  return { code: err.code, status, lines: [err.message] };
}

/** Runs a service call; its refusal (see serviceRefusal) is answered instead of thrown. */
export async function attempt<T>(call: () => Promise<T>): Promise<{ ok: T } | { refused: Refusal }> {
  try {
    return { ok: await call() };
  } catch (err) {
    return { refused: serviceRefusal(err) };
  }
}

export function RefusalNotice({ refusal }: { refusal: Refusal }) {
  return (
    <Notice kind="error">
      <strong>{refusal.code}</strong>
      {refusal.lines.length === 1 ? (
        `: ${refusal.lines[0]}`
      ) : (
        <ul>
          {refusal.lines.map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      )}
    </Notice>
  );
}
