// Every relative link and image in README.md, ARCHITECTURE.md and docs/**/*.md resolves: the file
// exists (relative to the linking file) and an anchor names a heading of the target Markdown file,
// slugged the way GitHub does. Absolute URLs and anything inside code (fenced or inline) are skipped.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');

/** The Markdown files checked, read at test time: docs/ may gain pages at any moment. */
function markdownFiles(): string[] {
  const docs = join(ROOT, 'docs');
  const pages = existsSync(docs)
    ? readdirSync(docs, { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.md'))
        .map((name) => join(docs, name))
    : [];
  return [join(ROOT, 'README.md'), join(ROOT, 'ARCHITECTURE.md'), ...pages.sort()];
}

/**
 * GitHub's heading slug (the rule of github-slugger, which github.com follows): lowercase, drop
 * every character that is not alphabetic, a mark, a decimal digit, connector punctuation (`_`), a
 * space or a hyphen — so backticks, `/`, `{}`, `.`, `:`, `(`, `²`, emoji and the like go — then each
 * space becomes a hyphen. Checked against github-slugger 2.0.0 over every code point to U+2FFFF: the
 * only differences are letters newer than its Unicode tables, which this keeps.
 */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Slugs of a page's headings in order, a repeated one suffixed `-1`, `-2`, … as on GitHub. */
function uniqueSlugs(headings: string[]): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const heading of headings) {
    const base = slug(heading);
    let result = base;
    while (seen.has(result)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      result = `${base}-${n}`;
    }
    seen.set(result, 0);
    slugs.add(result);
  }
  return slugs;
}

/** The text a heading renders to, which GitHub slugs: links and images by their text, no HTML. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '') // closing sequence of an ATX heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim();
}

/** A line with its inline code spans blanked (same length, so columns stay put). */
function withoutInlineCode(line: string): string {
  return line.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (span) => ' '.repeat(span.length));
}

interface Scanned {
  /** Link destinations outside code, with their 1-based line. */
  links: { line: number; target: string }[];
  /** Anchors the page defines: heading slugs and HTML `id`/`name` attributes. */
  anchors: Set<string>;
}

const scanCache = new Map<string, Scanned>();

function scan(file: string): Scanned {
  const cached = scanCache.get(file);
  if (cached) return cached;
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  const links: Scanned['links'] = [];
  const headings: string[] = [];
  const htmlAnchors = new Set<string>();
  let fence: { char: string; length: number } | undefined;
  lines.forEach((rawLine, index) => {
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(rawLine);
    if (fence) {
      if (
        fenceMark &&
        fenceMark[1][0] === fence.char &&
        fenceMark[1].length >= fence.length &&
        rawLine.trim() === fenceMark[1]
      ) {
        fence = undefined;
      }
      return;
    }
    if (fenceMark) {
      fence = { char: fenceMark[1][0], length: fenceMark[1].length };
      return;
    }
    const line = withoutInlineCode(rawLine);
    const atx = /^ {0,3}#{1,6}(?:\s+(.*))?$/.exec(rawLine);
    if (atx) headings.push(headingText(atx[1] ?? ''));
    // Setext heading: a `===` or `---` underline below a paragraph line.
    if (
      index > 0 &&
      /^ {0,3}(=+|-+)\s*$/.test(rawLine) &&
      lines[index - 1].trim() !== '' &&
      !/^ {0,3}(#|[-*+]\s|>|\|)/.test(lines[index - 1])
    ) {
      headings.push(headingText(lines[index - 1]));
    }
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) htmlAnchors.add(match[1]);
    // Inline links and images: `[text](dest)`, `[text](dest "title")`, `![alt](<dest>)`.
    for (const match of line.matchAll(
      /\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g,
    )) {
      links.push({ line: index + 1, target: match[1] });
    }
    // Reference-style definitions: `[label]: dest`.
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (definition) links.push({ line: index + 1, target: definition[1] });
    // HTML images and links written as tags.
    for (const match of line.matchAll(/<(?:img|a)\s[^>]*\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)) {
      links.push({ line: index + 1, target: match[1] });
    }
  });
  const scanned: Scanned = { links, anchors: new Set([...uniqueSlugs(headings), ...htmlAnchors]) };
  scanCache.set(file, scanned);
  return scanned;
}

/** Why a link does not resolve, or undefined when it does (or is not ours to check). */
function problem(file: string, rawTarget: string): string | undefined {
  const target = rawTarget.replace(/^<|>$/g, '');
  if (target === '') return 'empty link';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // http:, https:, mailto:, …
  const hash = target.indexOf('#');
  const pathPart = (hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
  const anchor = hash === -1 ? undefined : target.slice(hash + 1);
  let path: string;
  let wanted: string | undefined;
  try {
    path = decodeURIComponent(pathPart);
    wanted = anchor === undefined ? undefined : decodeURIComponent(anchor);
  } catch {
    return 'bad percent-encoding';
  }
  const resolved = path === '' ? file : path.startsWith('/') ? join(ROOT, path) : resolve(dirname(file), path);
  if (!existsSync(resolved)) return 'no such file';
  if (wanted === undefined || !resolved.endsWith('.md')) return undefined;
  if (wanted === '') return 'empty anchor';
  if (scan(resolved).anchors.has(wanted)) return undefined;
  return `no heading with anchor #${wanted} in ${relative(ROOT, resolved)}`;
}

test('GitHub heading slugs: punctuation, code, braces and emoji dropped; spaces to hyphens; repeats numbered', () => {
  assert.equal(slug(headingText('Live status: `GET /tasks/{id}/events`')), 'live-status-get-tasksidevents');
  assert.equal(
    slug(headingText('Deployment: Docker, systemd, reverse proxy')),
    'deployment-docker-systemd-reverse-proxy',
  );
  assert.equal(slug(headingText('Serving: `GET /images/{id}.{ext}`')), 'serving-get-imagesidext');
  assert.equal(slug(headingText('Embedded (no network at run time)')), 'embedded-no-network-at-run-time');
  assert.equal(slug(headingText('🚀 Fast start')), '-fast-start');
  assert.equal(slug(headingText('snake_case and Ünïcode, x²')), 'snake_case-and-ünïcode-x');
  assert.equal(slug(headingText('See [the docs](docs/x.md) ##')), 'see-the-docs');
  assert.deepEqual([...uniqueSlugs(['Usage', 'Usage', 'Usage'])], ['usage', 'usage-1', 'usage-2']);
});

test('the scanner skips fenced and inline code and finds links, images and reference definitions', () => {
  assert.equal(withoutInlineCode('a `[x](y)` b'), `a ${' '.repeat(8)} b`);
  assert.equal(withoutInlineCode('a ``[x](`y`)`` b'), `a ${' '.repeat(12)} b`);
  const dir = mkdtempSync(join(tmpdir(), 'imgtask-links-'));
  try {
    const file = join(dir, 'page.md');
    writeFileSync(
      file,
      [
        '# Title',
        'See [one](a.md#x "title"), ![two](<img 1.png>) and `[not](code.md)`.',
        '```md',
        '[not](fenced.md)',
        '```',
        '[ref]: ref.md#y',
        '## Title',
      ].join('\n'),
    );
    const { links, anchors } = scan(file);
    assert.deepEqual(links, [
      { line: 2, target: 'a.md#x' },
      { line: 2, target: '<img 1.png>' },
      { line: 6, target: 'ref.md#y' },
    ]);
    assert.deepEqual([...anchors], ['title', 'title-1']);
    assert.equal(problem(file, '#title-1'), undefined);
    assert.equal(problem(file, '#nope'), `no heading with anchor #nope in ${relative(ROOT, file)}`);
    assert.equal(problem(file, 'a.md'), 'no such file');
    assert.equal(problem(file, 'https://example.com/x.md'), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every relative link and anchor in README.md, ARCHITECTURE.md and docs/ resolves', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    for (const { line, target } of scan(file).links) {
      checked++;
      const reason = problem(file, target);
      if (reason) broken.push(`${relative(ROOT, file)}:${line} → ${target} (${reason})`);
    }
  }
  assert.ok(checked > 0, 'the scan found no links at all');
  assert.equal(broken.length, 0, `${broken.length} broken link(s):\n${broken.join('\n')}`);
});

/** Every `.ts` file under src/. */
function sourceFiles(): string[] {
  const src = join(ROOT, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') || name.endsWith('.tsx'))
    .map((name) => join(src, name))
    .sort();
}

test('the docs pages code comments cite (docs/….md#anchor) exist, and no comment cites an outside spec', () => {
  const broken: string[] = [];
  const outside: string[] = [];
  let checked = 0;
  for (const file of sourceFiles()) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const match of line.matchAll(/\b(docs\/[\w./-]+\.md(?:#[\w-]+)?)/g)) {
          checked++;
          const reason = problem(join(ROOT, 'README.md'), match[1]);
          if (reason) broken.push(`${relative(ROOT, file)}:${index + 1} → ${match[1]} (${reason})`);
        }
        if (/\bSPEC\b|\bthe spec\b/.test(line)) outside.push(`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`);
      });
  }
  assert.ok(checked >= 40, `code comments cite the docs ${checked} times; expected the contract's citations`);
  assert.equal(broken.length, 0, `${broken.length} broken citation(s):\n${broken.join('\n')}`);
  assert.equal(outside.length, 0, `comments citing a document the repository does not hold:\n${outside.join('\n')}`);
});
