import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';

/** Just enough of the DOM for the inspector's script: elements with classes, children and a few properties. */
class El {
  className = '';
  textContent = '';
  src = '';
  alt = '';
  width = 0;
  children: El[] = [];
  parent?: El;
  readonly classList = {
    remove: (name: string) =>
      (this.className = this.className
        .split(' ')
        .filter((c) => c !== name)
        .join(' ')),
  };
  constructor(readonly tag: string) {}
  append(...children: El[]) {
    for (const child of children) child.parent = this;
    this.children.push(...children);
  }
  prepend(child: El) {
    child.parent = this;
    this.children.unshift(child);
  }
  replaceChildren(...children: El[]) {
    this.children = [];
    this.append(...children);
  }
  remove() {
    if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this);
  }
  querySelector(selector: string): El | null {
    for (const child of this.children) {
      const match = selector.startsWith('.')
        ? child.className.split(' ').includes(selector.slice(1))
        : child.tag === selector;
      if (match) return child;
      const deeper = child.querySelector(selector);
      if (deeper) return deeper;
    }
    return null;
  }
}

/** The inspector of a pending task of two items, with tasks.js running on it; `emit` plays an event of its stream. */
async function inspector() {
  const rows = [0, 1].map(() => {
    const row = new El('tr');
    for (const name of ['item-status', 'item-code', 'item-message', 'item-output']) {
      const cell = new El('td');
      cell.className = name;
      row.append(cell);
    }
    return row;
  });
  const byId: Record<string, unknown> = {
    live: { dataset: { events: '/tasks/tsk_1/events?token=pat_x' } },
    'live-bar': {},
    'live-text': {},
  };
  const document = {
    getElementById: (id: string) => byId[id] ?? null,
    querySelector: (selector: string) => rows[Number(/data-index="(\d+)"/.exec(selector)?.[1])] ?? null,
    createElement: (tag: string) => new El(tag),
    addEventListener: () => undefined,
  };
  const listeners = new Map<string, (event: { data: string }) => void>();
  class EventSource {
    static CLOSED = 2;
    readyState = 1;
    addEventListener(name: string, fn: (event: { data: string }) => void) {
      listeners.set(name, fn);
    }
    close() {}
  }
  const window = { location: { href: 'http://localhost/console/tasks/tsk_1', reload: () => undefined } };
  const code = await readFile(join(import.meta.dirname, '../../../public/console/tasks.js'), 'utf8');
  runInNewContext(code, { document, window, EventSource, URL, setTimeout, clearTimeout });
  const emit = (name: string, data: unknown) => listeners.get(name)!({ data: JSON.stringify(data) });
  const progress = (statuses: string[]) => ({
    progress: { total: 2, finished: 0, succeeded: 0, failed: 0, items: statuses.map((status) => ({ status })) },
  });
  return { rows, emit, progress };
}

test("the inspector shows a running item's latest preview in its row, then its output's thumbnail once it succeeds, or nothing once it failed", async () => {
  const { rows, emit, progress } = await inspector();
  const figureOf = (index: number) => rows[index].querySelector('.item-output')!.children[0];
  emit('preview', { index: 0, mimeType: 'image/jpeg', data: 'AAAA' });
  emit('preview', { index: 0, mimeType: 'image/jpeg', data: 'BBBB' });
  assert.equal(rows[0].querySelector('.item-output')!.children.length, 1, 'one preview per item, replaced');
  assert.equal(figureOf(0).className, 'item-thumb live-preview');
  assert.equal(figureOf(0).querySelector('img')!.src, 'data:image/jpeg;base64,BBBB');
  emit('preview', { index: 0, mimeType: 'text/html', data: 'PHNjcmlwdD4=' });
  assert.equal(
    figureOf(0).querySelector('img')!.src,
    'data:image/jpeg;base64,BBBB',
    'a type that is no image is not drawn',
  );
  emit('preview', { index: 1, mimeType: 'image/png', data: 'CCCC' });

  emit('progress', progress(['success', 'failed']));
  assert.equal(
    figureOf(0).querySelector('img')!.src,
    '/console/thumbs/tsk_1/0?w=160',
    "the output's thumbnail replaces the preview",
  );
  assert.equal(figureOf(0).className, 'item-thumb');
  assert.equal(figureOf(0).querySelector('figcaption')!.textContent, 'Output');
  assert.equal(rows[1].querySelector('.item-output')!.children.length, 0, "a failed item's preview goes");
});
