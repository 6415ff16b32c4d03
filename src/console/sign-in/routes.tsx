/** @jsxImportSource hono/jsx */
import type { Context, Hono } from 'hono';
import { AppError } from '../../domain/errors.js';
import { safeNext } from '../../services/console-sessions.js';
import type { ConsoleDeps, ConsoleEnv } from '../console-deps.js';
import { readForm, render, seeOther, sessionOf } from '../console-http.js';
import { Notice, Page } from '../layout.js';
import { clientAddress, createAttemptLimiter } from '../security.js';
import { clearSessionCookie, sessionSecret, setSessionCookie } from '../session.js';

/** Sign-in attempts (link visits and pasted tokens) per client address per minute. */
const ATTEMPTS_PER_MINUTE = 10;

function SignInPage({ next, error }: { next: string; error?: string }) {
  return (
    <Page title="Sign in">
      {error && <Notice kind="error">{error}</Notice>}
      <p>
        Open the one-time link that <code>imgtask console --account NAME</code> prints, or paste an OAuth access token (
        <code>imgtask tokens issue --account NAME</code>).
      </p>
      <form method="post" action="/console/sign-in" class="stack narrow">
        <input type="hidden" name="next" value={next} />
        <label for="token">Access token</label>
        <textarea id="token" name="token" rows={4} required autocomplete="off" spellcheck={false} />
        <button type="submit">Sign in</button>
      </form>
    </Page>
  );
}

/**
 * What a one-time link opens: a button that spends it. A GET never spends a link, so a mail
 * scanner or a chat app's preview fetching it leaves it for the person it was sent to.
 */
function LinkPage({ code }: { code: string }) {
  return (
    <Page title="Sign in">
      <p>
        This one-time link opens one console session in this browser. It works once and expires ten minutes after it was
        printed.
      </p>
      <form method="post" action={`/console/sign-in/${encodeURIComponent(code)}`} class="stack narrow">
        <button type="submit">Sign in</button>
      </form>
    </Page>
  );
}

/** The sign-in page, the one-time link, the pasted token, and signing out. */
export function registerSignIn(app: Hono<ConsoleEnv>, deps: ConsoleDeps): void {
  const limiter = createAttemptLimiter(ATTEMPTS_PER_MINUTE);
  const limited = (c: Context<ConsoleEnv>) => {
    const wait = limiter.take(clientAddress(c, deps.config.current().server.trustedProxies));
    if (wait === null) return null;
    c.header('retry-after', String(wait));
    return render(
      c,
      <SignInPage next="/console" error={`Too many sign-in attempts from here: try again in ${wait} s.`} />,
      429,
    );
  };

  app.get('/sign-in', (c) => render(c, <SignInPage next={safeNext(c.req.query('next'))} />));

  app.get('/sign-in/:code', (c) => render(c, <LinkPage code={c.req.param('code')} />));

  app.post('/sign-in/:code', async (c) => {
    const refused = limited(c);
    if (refused) return refused;
    try {
      const { cookie, session, next } = await deps.consoleSessions.redeemLink(
        c.req.param('code'),
        c.req.header('user-agent'),
      );
      await deps.consoleSessions.signOut(sessionSecret(c)); // the session this browser had, if any, ends here
      setSessionCookie(c, deps, cookie, session.expiresAt);
      return seeOther(c, session.accountId === null && next === '/console' ? '/console/operator' : next);
    } catch (err) {
      if (err instanceof AppError && err.code === 'UNAUTHORIZED')
        return render(c, <SignInPage next="/console" error={err.message} />, 401);
      throw err;
    }
  });

  app.post('/sign-in', async (c) => {
    const refused = limited(c);
    if (refused) return refused;
    const form = await readForm(c);
    const next = safeNext(form.next);
    try {
      const { cookie, session } = await deps.consoleSessions.signInWithToken(
        form.token ?? '',
        c.req.header('user-agent'),
      );
      await deps.consoleSessions.signOut(sessionSecret(c));
      setSessionCookie(c, deps, cookie, session.expiresAt);
      return seeOther(c, next);
    } catch (err) {
      if (err instanceof AppError && ['UNAUTHORIZED', 'INVALID_TOKEN', 'TOKEN_EXPIRED'].includes(err.code)) {
        return render(
          c,
          <SignInPage next={next} error={err.message || 'This access token is not valid or has expired.'} />,
          401,
        );
      }
      throw err;
    }
  });

  app.post('/sign-out', async (c) => {
    sessionOf(c);
    await deps.consoleSessions.signOut(sessionSecret(c));
    clearSessionCookie(c, deps);
    return seeOther(c, '/console/sign-in');
  });
}

/** Shown where a signed-out visitor posted to the console: the sign-in page, never data. */
export const signInAnswer = (c: Context<ConsoleEnv>, path: string) =>
  render(c, <SignInPage next={safeNext(path)} error="Your session has ended: sign in again." />, 401);
