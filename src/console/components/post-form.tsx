/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { ConsoleSession } from '../../services/console-sessions.js';
import { Csrf } from '../layout.js';

/**
 * An action of a row or a page: a small form that posts to `action` with the session's form token,
 * the page's script asking `confirm` first when one is given. The children are its fields and button.
 */
export function PostForm({
  session,
  action,
  confirm,
  children,
}: {
  session: ConsoleSession;
  action: string;
  confirm?: string | undefined;
  children?: Child;
}) {
  return (
    <form method="post" action={action} class="inline" data-confirm={confirm}>
      <Csrf session={session} />
      {children}
    </form>
  );
}
