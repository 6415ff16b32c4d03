/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';

/**
 * A secret in the one answer that carries it (a new key, a webhook's signing secret): copyable,
 * and said plainly that it is not kept for showing later. The page answering it is not cached
 * (the console's headers say no-store) and nothing redirects to it.
 */
export function ShownOnce({
  id,
  label,
  value,
  children,
}: {
  id: string;
  label: string;
  value: string;
  children?: Child;
}) {
  return (
    <section class="panel shown-once" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{label}</h2>
      <p>
        <strong>Copy it now: it will not be shown again.</strong>
      </p>
      <div class="secret">
        <code id={id}>{value}</code>
        <button type="button" data-copy={id} hidden>
          Copy
        </button>
      </div>
      {children}
    </section>
  );
}
