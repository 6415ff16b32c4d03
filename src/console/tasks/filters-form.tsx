/** @jsxImportSource hono/jsx */
import { TASK_STATUSES } from '../../domain/task-status.js';
import type { ApiKeyView } from '../../services/api-keys.js';
import { hasFilters, PAGE_SIZE, type TaskFilters } from './list-query.js';

/** The filter form: a GET form, so a filtered view is a URL to keep or share. */
export function TaskFiltersForm({
  filters,
  types,
  keys,
}: {
  filters: TaskFilters;
  types: readonly string[];
  keys: readonly ApiKeyView[];
}) {
  const keyKnown = !filters.key || keys.some((key) => key.id === filters.key);
  const metadata = [...filters.metadata, ''];
  return (
    <form method="get" action="/console/tasks" class="filters" aria-label="Filter tasks">
      <label for="filter-type">
        Type
        <select id="filter-type" name="type">
          <option value="">Any type</option>
          {types.map((type) => (
            <option value={type} selected={filters.type === type}>
              {type}
            </option>
          ))}
        </select>
      </label>
      <label for="filter-status">
        Status
        <select id="filter-status" name="status">
          <option value="">Any status</option>
          {TASK_STATUSES.map((status) => (
            <option value={status} selected={filters.status === status}>
              {status}
            </option>
          ))}
        </select>
      </label>
      <label for="filter-key">
        Key
        <select id="filter-key" name="key">
          <option value="">Any key</option>
          {keys.map((key) => (
            <option value={key.id} selected={filters.key === key.id}>
              {key.name ? `${key.name} (${key.keyPreview})` : key.keyPreview}
            </option>
          ))}
          {!keyKnown && (
            <option value={filters.key} selected>
              {`${filters.key} (deleted)`}
            </option>
          )}
        </select>
      </label>
      <label for="filter-from">
        Created from (UTC)
        <input type="date" id="filter-from" name="from" value={filters.from} />
      </label>
      <label for="filter-to">
        Created to (UTC)
        <input type="date" id="filter-to" name="to" value={filters.to} />
      </label>
      {metadata.map((pair, index) => (
        <label for={`filter-metadata-${index}`}>
          Metadata (key=value)
          <input
            type="text"
            id={`filter-metadata-${index}`}
            name="metadata"
            value={pair}
            placeholder="order=o-17"
            autocomplete="off"
            spellcheck={false}
          />
        </label>
      ))}
      {filters.limit !== PAGE_SIZE && <input type="hidden" name="limit" value={String(filters.limit)} />}
      <div class="actions">
        <button type="submit">Filter</button>
        {hasFilters(filters) && (
          <a class="button quiet" href="/console/tasks">
            Clear filters
          </a>
        )}
      </div>
    </form>
  );
}
