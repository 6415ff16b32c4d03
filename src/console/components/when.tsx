/** @jsxImportSource hono/jsx */

/** A stored time (ISO, UTC) as people read it, to the minute; the exact value stays in `datetime`. */
export function When({ at, none = '—' }: { at: string | null | undefined; none?: string }) {
  if (!at) return <span class="muted">{none}</span>;
  return <time datetime={at}>{`${at.slice(0, 10)} ${at.slice(11, 16)} UTC`}</time>;
}
