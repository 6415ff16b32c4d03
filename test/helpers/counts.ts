/** How many times each value occurs. */
export function countBy(values: readonly (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Settled promises counted by outcome: `created` for each fulfilled, else the rejection's code (or message). */
export const outcomeCodes = (results: PromiseSettledResult<unknown>[]): Record<string, number> =>
  countBy(
    results.map((r) =>
      r.status === 'fulfilled'
        ? 'created'
        : String((r.reason as { code?: string }).code ?? (r.reason as Error).message),
    ),
  );
