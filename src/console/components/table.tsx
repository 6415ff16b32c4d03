/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';

/** A column heading: its text, or its text with a class (`num` right-aligns a column of figures). */
export type Column = Child | { label: Child; class: string };

/** A heading of a column of figures, right-aligned as its cells are. */
export const num = (label: Child): Column => ({ label, class: 'num' });

const isClassed = (column: Column): column is { label: Child; class: string } =>
  typeof column === 'object' && column !== null && 'class' in column && 'label' in column;

interface TableProps {
  columns: readonly Column[];
  /** Read by screen readers only: the heading above the table says it for everyone else. */
  caption?: Child;
  id?: string;
  class?: string;
  /** Attributes of the tbody, for a body a script refreshes in place. */
  body?: Record<string, string>;
  /** The rows of a tfoot (a total), if any. */
  foot?: Child;
  children?: Child;
}

/**
 * A console table: it scrolls sideways on narrow screens, its headings come from `columns`, its rows are the children.
 */
export function Table({ columns, caption, id, class: className, body, foot, children }: TableProps) {
  return (
    <div class="table-wrap">
      <table id={id} class={className}>
        {caption !== undefined && <caption class="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) =>
              isClassed(column) ? (
                <th scope="col" class={column.class}>
                  {column.label}
                </th>
              ) : (
                <th scope="col">{column}</th>
              ),
            )}
          </tr>
        </thead>
        <tbody {...body}>{children}</tbody>
        {foot !== undefined && <tfoot>{foot}</tfoot>}
      </table>
    </div>
  );
}
