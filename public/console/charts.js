// Draws every chart of the page: a <canvas data-chart="…"> holds its data as JSON (see
// src/console/charts.tsx), drawn with Chart.js. chart.js (Chart.js's UMD build, defining
// window.Chart) is the module script just before this one, and module scripts run in order; if it
// is not there yet (or failed), wait for the page's load, and draw nothing without it: the tables
// stay open then.

/** Colours by tone, the console's own (console.css): status is also in the legend and the table, never colour only. */
const TONES = {
  completed: { fill: '#1e6b35', line: '#1e6b35' },
  failed: { fill: '#b3261e', line: '#b3261e' },
  pending: { fill: '#d08c1d', line: '#8a5300' },
  cost: { fill: '#1f5fbf', line: '#1f5fbf' },
  count: { fill: '#575c66', line: '#1b1d21' },
};

function chartLibrary() {
  if (window.Chart) return Promise.resolve(window.Chart);
  return new Promise((resolve) => window.addEventListener('load', () => resolve(window.Chart), { once: true }));
}

function dataset(series) {
  const tone = TONES[series.tone] ?? TONES.cost;
  const line = series.draw === 'line';
  return {
    type: line ? 'line' : 'bar',
    label: series.label,
    data: series.values,
    backgroundColor: tone.fill,
    borderColor: tone.line,
    borderWidth: line ? 2 : 0,
    pointRadius: line ? 2 : 0,
    yAxisID: series.axis === 'right' ? 'right' : 'left',
    // Lines over bars.
    order: line ? 0 : 1,
  };
}

function axis(title, position, stacked, integers) {
  return {
    position,
    stacked,
    beginAtZero: true,
    title: { display: Boolean(title), text: title ?? '' },
    ticks: integers ? { precision: 0 } : {},
    grid: { drawOnChartArea: position === 'left' },
  };
}

function configOf(spec) {
  const stacked = Boolean(spec.stacked);
  const right = spec.series.some((s) => s.axis === 'right');
  const countsOnly = (side) => spec.series.filter((s) => (s.axis ?? 'left') === side).every((s) => s.tone !== 'cost');
  const scales = { x: { stacked }, left: axis(spec.axes?.left, 'left', stacked, countsOnly('left')) };
  if (right) scales.right = axis(spec.axes?.right, 'right', false, countsOnly('right'));
  return {
    type: 'bar',
    data: { labels: spec.labels, datasets: spec.series.map(dataset) },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      // Figures, not a show: drawn at once (no motion to reduce, and a resize redraws them whole).
      animation: false,
      interaction: { mode: 'index', intersect: false },
      scales,
    },
  };
}

/** Draws one chart; shows it and folds its table away once drawn. */
function draw(Chart, canvas) {
  let spec;
  try {
    spec = JSON.parse(canvas.dataset.chart);
  } catch {
    return;
  }
  const box = canvas.closest('.chart');
  if (box) box.hidden = false;
  new Chart(canvas, configOf(spec));
  const table = canvas.closest('figure')?.querySelector('details.chart-data');
  if (table) table.open = false;
}

const Chart = await chartLibrary();
if (Chart) for (const canvas of document.querySelectorAll('canvas[data-chart]')) draw(Chart, canvas);
