// The tasks pages, live: the list's rows are fetched again (a server-rendered fragment) every few
// seconds while the tab is visible, and the inspector follows its task's status stream until it
// settles, then reloads. Both pages work without this script; it only keeps them current.

const REFRESH_MS = 4000;

/** The list: swaps the table's rows for the server's current ones while they can change. */
function followList(tbody) {
  let timer;
  let shown = '';
  // The newest page can gain tasks; any page can see its pending tasks settle.
  const changing = () => tbody.dataset.newest === 'true' || tbody.querySelector('tr[data-status="pending"]') !== null;
  const schedule = () => {
    clearTimeout(timer);
    if (document.visibilityState === 'visible' && changing()) timer = setTimeout(refresh, REFRESH_MS);
  };
  async function refresh() {
    try {
      const res = await fetch(tbody.dataset.rows, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
      // Anything but the rows (the sign-in page once the session ended) is left alone.
      const html = res.ok && res.headers.get('x-task-rows') === '1' ? await res.text() : null;
      // A row holding the keyboard focus is not pulled from under it: the next refresh swaps it.
      if (html !== null && html !== shown && !tbody.contains(document.activeElement)) {
        shown = html;
        const template = document.createElement('template');
        template.innerHTML = html; // rendered and escaped by the server
        tbody.replaceChildren(template.content);
      }
    } catch {
      // Offline for a moment: keep the rows shown and try again.
    }
    schedule();
  }
  document.addEventListener('visibilitychange', () =>
    document.visibilityState === 'visible' ? refresh() : clearTimeout(timer),
  );
  schedule();
}

/** An item's state as the inspector's table shows it. */
function itemBadge(item) {
  const badge = document.createElement('span');
  badge.className = `badge ${item.status}`;
  if (item.status !== 'pending') badge.textContent = item.status;
  else badge.textContent = item.fraction === undefined ? 'pending' : `running ${Math.round(item.fraction * 100)} %`;
  return badge;
}

/** The media types a live preview may have (anything else is not drawn). */
const PREVIEW_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);

/** The inspector of a pending task: its live status stream (GET /tasks/{id}/events with a PAT for this task). */
function followTask(section) {
  const bar = document.getElementById('live-bar');
  const text = document.getElementById('live-text');
  const source = new EventSource(section.dataset.events);
  const show = (event) => {
    const progress = JSON.parse(event.data).progress;
    if (!progress) return;
    bar.max = Math.max(progress.total, 1);
    bar.value = progress.finished;
    text.textContent = `${progress.finished} of ${progress.total} items finished (${progress.succeeded} succeeded, ${progress.failed} failed)`;
    progress.items.forEach((item, index) => {
      const row = document.querySelector(`#task-items tr[data-index="${index}"]`);
      if (!row) return;
      if (item.status !== 'pending') landed(row, index, item.status);
      row.querySelector('.item-status').replaceChildren(itemBadge(item));
      if (!item.error) return;
      const code = document.createElement('code');
      code.textContent = item.error.code;
      row.querySelector('.item-code').replaceChildren(code);
      row.querySelector('.item-message').textContent = item.error.message ?? '';
    });
  };
  // The task's id, for the thumbnail of an output that replaces its item's live preview.
  const taskId = decodeURIComponent(new URL(section.dataset.events, window.location.href).pathname.split('/')[2] ?? '');
  /** An item ended: its live preview gives way to its output's thumbnail (success) or goes (failed). */
  const landed = (row, index, status) => {
    const figure = row.querySelector('.live-preview');
    if (!figure) return;
    if (status !== 'success') return figure.remove();
    figure.querySelector('img').src = `/console/thumbs/${encodeURIComponent(taskId)}/${index}?w=160`;
    figure.querySelector('figcaption').textContent = 'Output';
    figure.classList.remove('live-preview');
  };
  /** A running item's newest live preview (ComfyUI models): shown in its row until its output lands. */
  source.addEventListener('preview', (event) => {
    const { index, mimeType, data } = JSON.parse(event.data);
    const row = document.querySelector(`#task-items tr[data-index="${Number(index)}"]`);
    if (!row || !PREVIEW_TYPES.has(mimeType) || typeof data !== 'string') return;
    let figure = row.querySelector('.live-preview');
    if (!figure) {
      figure = document.createElement('figure');
      figure.className = 'item-thumb live-preview';
      const img = document.createElement('img');
      img.alt = `Live preview of item ${Number(index) + 1}`;
      img.width = 160;
      const caption = document.createElement('figcaption');
      caption.textContent = 'Live preview';
      figure.append(img, caption);
      row.querySelector('.item-output').prepend(figure);
    }
    figure.querySelector('img').src = `data:${mimeType};base64,${data}`;
  });
  source.addEventListener('task', show);
  source.addEventListener('progress', show);
  source.addEventListener('settled', (event) => {
    show(event);
    source.close();
    text.textContent = 'Settled: loading its result…';
    window.location.reload();
  });
  // A stream that ended for good (its token expired, the task settled meanwhile): read the page again.
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(() => window.location.reload(), 5000);
  });
}

const rows = document.getElementById('task-rows');
if (rows?.dataset.rows) followList(rows);
const live = document.getElementById('live');
if (live?.dataset.events) followTask(live);
