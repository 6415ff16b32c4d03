/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { ConsoleSession } from '../services/console-sessions.js';
import { assetUrl } from './assets.js';

/** The account pages, in the order the navigation lists them. */
export const ACCOUNT_PAGES = [
  { path: '/console', label: 'Overview' },
  { path: '/console/tasks', label: 'Tasks' },
  { path: '/console/gallery', label: 'Gallery' },
  { path: '/console/playground', label: 'Playground' },
  { path: '/console/keys', label: 'Keys' },
  { path: '/console/webhooks', label: 'Webhooks' },
  { path: '/console/destinations', label: 'Destinations' },
  { path: '/console/usage', label: 'Usage' },
] as const;

/** The form field every state-changing console form carries (checked with the session, see mount.ts). */
export const CSRF_FIELD = '_csrf';

export function Csrf({ session }: { session: ConsoleSession }) {
  return <input type="hidden" name={CSRF_FIELD} value={session.csrf} />;
}

interface PageProps {
  title: string;
  /** The signed-in session; absent on the sign-in page. */
  session?: ConsoleSession;
  /** The navigation entry to mark current (its path). */
  active?: string;
  /** Extra scripts of this page (asset names, loaded as modules after console.js). */
  scripts?: readonly string[];
  /** Extra stylesheets of this page (asset names, after console.css). */
  styles?: readonly string[];
  /** A line under the title. */
  lead?: Child;
  children?: Child;
}

function Navigation({ session, active }: { session: ConsoleSession; active?: string }) {
  const pages = session.accountId === null ? [{ path: '/console/operator', label: 'Operator' }] : ACCOUNT_PAGES;
  return (
    <nav aria-label="Console">
      <a class="brand" href={session.accountId === null ? '/console/operator' : '/console'}>
        imgtask
      </a>
      <ul>
        {pages.map((page) => (
          <li>
            <a href={page.path} aria-current={page.path === active ? 'page' : undefined}>
              {page.label}
            </a>
          </li>
        ))}
      </ul>
      <form method="post" action="/console/sign-out" class="sign-out">
        <Csrf session={session} />
        <button type="submit" class="quiet">
          Sign out
        </button>
      </form>
    </nav>
  );
}

/** Every console page: the document, the navigation, the page's heading and content. */
export function Page({ title, session, active, scripts = [], styles = [], lead, children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {session && <meta name="csrf-token" content={session.csrf} />}
        <title>{`${title} · imgtask console`}</title>
        {/* No favicon: an empty one keeps browsers from asking /favicon.ico. */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assetUrl('console.css')} />
        {styles.map((name) => (
          <link rel="stylesheet" href={assetUrl(name)} />
        ))}
        <script type="module" src={assetUrl('console.js')} />
        {scripts.map((name) => (
          <script type="module" src={assetUrl(name)} />
        ))}
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        {session && (
          <header>
            <Navigation session={session} active={active} />
          </header>
        )}
        <main id="main" tabindex={-1}>
          <h1>{title}</h1>
          {lead && <p class="lead">{lead}</p>}
          {children}
        </main>
      </body>
    </html>
  );
}

/** What a page shows when it has nothing yet: what this is, and the next step. */
export function EmptyState({ title, children }: { title: string; children?: Child }) {
  return (
    <section class="empty" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A message above a page's content: a refusal's reason, or what an action did. */
export function Notice({ kind, children }: { kind: 'error' | 'ok'; children?: Child }) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
