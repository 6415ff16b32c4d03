/** @jsxImportSource hono/jsx */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError, ERROR_STATUS } from '../domain/errors.js';
import type { ConsoleEnv } from './console-deps.js';
import { render, SignInNeeded, WrongSession } from './console-http.js';
import { Notice, Page } from './layout.js';
import { signInAnswer } from './sign-in/routes.js';

const NOT_FOUND_TEXT = 'Nothing here: it does not exist, or it is not yours.';

/** A console page for a refusal or a fault: the code and its reason as text; a fault's inner message never. */
export function errorAnswer(err: Error, c: Context<ConsoleEnv>): Response | Promise<Response> {
  const session = c.get('session');
  if (err instanceof SignInNeeded) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD')
      return c.redirect(`/console/sign-in?next=${encodeURIComponent(new URL(c.req.url).pathname)}`, 303);
    return signInAnswer(c, new URL(c.req.url).pathname);
  }
  if (err instanceof WrongSession)
    return render(c, <ErrorPage session={session} status={403} code="FORBIDDEN" message={err.message} />, 403);
  if (err instanceof AppError) {
    const status = ERROR_STATUS[err.code] as ContentfulStatusCode;
    const message = status === 404 ? NOT_FOUND_TEXT : err.message;
    return render(c, <ErrorPage session={session} status={status} code={err.code} message={message} />, status);
  }
  // The access line logs the fault with the request id; the page shows the id, never the message.
  c.set('fault', err);
  return render(
    c,
    <ErrorPage
      session={session}
      status={500}
      code="INTERNAL_SERVER_ERROR"
      message={`Something went wrong on the server (request ${c.get('requestId')}).`}
    />,
    500,
  );
}

export const notFoundAnswer = (c: Context<ConsoleEnv>) => {
  // Signed out, an unknown path is answered like every page: sign in first (nothing is told of what exists).
  if (!c.get('session')) return errorAnswer(new SignInNeeded(), c);
  return render(
    c,
    <ErrorPage session={c.get('session')} status={404} code="NOT_FOUND" message={NOT_FOUND_TEXT} />,
    404,
  );
};

function ErrorPage({
  session,
  status,
  code,
  message,
}: {
  session: Parameters<typeof Page>[0]['session'];
  status: number;
  code: string;
  message?: string;
}) {
  return (
    <Page title={status === 404 ? 'Not found' : 'Not possible'} session={session}>
      <Notice kind="error">
        <strong>{code}</strong>
        {message ? `: ${message}` : ''}
      </Notice>
      <p>
        <a href="/console">Back to the overview</a>
      </p>
    </Page>
  );
}
