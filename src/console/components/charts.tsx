/** @jsxImportSource hono/jsx */
import { num, Table } from './table.js';

/** The scripts and stylesheet a page with charts loads (Chart.js, the console's drawing of the specs, their styles). */
export const CHART_ASSETS = { scripts: ['chart.js', 'charts.js'], styles: ['charts.css'] } as const;
/** One series of a chart: its name, one value per label, and how it is drawn. */
export interface ChartSeries {
  label: string;
  values: number[];
  /** Bars (the default), or a line drawn over them. */
  draw?: 'bar' | 'line';
  /** The axis it is measured on: left (the default) or right (a second unit, e.g. tasks beside USD). */
  axis?: 'left' | 'right';
  /** Its colour family (public/console/charts.js): a task status, money, or a count. */
  tone?: 'completed' | 'failed' | 'pending' | 'cost' | 'count';
}

/** What public/console/charts.js draws: plain data, no code, no markup. */
export interface ChartSpec {
  labels: string[];
  series: ChartSeries[];
  /** Bars of the series stacked on one another (tasks by status). */
  stacked?: boolean;
  /** Axis titles. */
  axes?: { left?: string; right?: string };
}

interface ChartProps {
  /** The canvas id (unique in the page). */
  id: string;
  title: string;
  spec: ChartSpec;
  /** The heading of the table's first column: what the labels are (Hour, Day, Key, Type). */
  labelHeading: string;
  /** A line under the chart (what it counts, a bound it was drawn under). */
  note?: string;
}

/**
 * A chart and its text equivalent. The canvas carries its data as JSON in `data-chart` (an
 * attribute, escaped like any other: no inline script), drawn by charts.js, which then shows the
 * chart and folds the table away. Without scripts the chart stays hidden and the table open.
 */
export function Chart({ id, title, spec, labelHeading, note }: ChartProps) {
  return (
    <figure class="chart-figure" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div class="chart" hidden>
        <canvas
          id={id}
          role="img"
          aria-label={`${title}: a chart; the table after it has the same figures`}
          data-chart={JSON.stringify(spec)}
        />
      </div>
      {note && <p class="muted chart-note">{note}</p>}
      <details class="chart-data" open>
        <summary>{`${title}: the figures`}</summary>
        <Table caption={title} columns={[labelHeading, ...spec.series.map((series) => num(series.label))]}>
          {spec.labels.map((label, row) => (
            <tr>
              <th scope="row">{label}</th>
              {spec.series.map((series) => (
                <td class="num">{String(series.values[row] ?? 0)}</td>
              ))}
            </tr>
          ))}
        </Table>
      </details>
    </figure>
  );
}
