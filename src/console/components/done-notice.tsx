/** @jsxImportSource hono/jsx */
import { Notice } from '../layout.js';

/**
 * What a form did, after its 303: the page is asked for with `?done=<word>`, and only the page's
 * own sentences are shown (never text from the address, which anyone can write).
 */
export function DoneNotice({
  done,
  messages,
}: {
  done: string | undefined;
  messages: Readonly<Record<string, string>>;
}) {
  const text = done && Object.hasOwn(messages, done) ? messages[done] : undefined;
  return text ? <Notice kind="ok">{text}</Notice> : null;
}
