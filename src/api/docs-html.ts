/** The parts of an OpenAPI operation the reference shows. */
interface Operation {
  summary: string;
  tags: string[];
  security: Record<string, string[]>[];
  'x-scope'?: string | null;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string }>;
}

/** The API description as `buildOpenApi` makes it, seen through the fields the reference shows. */
interface Described {
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { summary: string; requestBody: { content: Record<string, { schema: unknown }> } } }>;
}

/** Renders the API description as one self-contained HTML page: no script, no CDN, works offline. */
export function renderDocsHtml(described: object): string {
  const doc = described as Described;
  const esc = (text: unknown) => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  const json = (value: unknown) => `<pre>${esc(JSON.stringify(value, null, 2))}</pre>`;
  const byTag = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const security = op.security.map((s) => Object.keys(s)[0]).join(', ') || 'public';
      const responses = Object.entries(op.responses)
        .map(([status, r]) => `<li><b>${esc(status)}</b> ${esc(r.description)}</li>`)
        .join('');
      const anchor = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-');
      const html = `<section id="${esc(anchor)}"><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary)}</p><p class="meta">Credentials: ${esc(security)}${op['x-scope'] ? ` · scope <code>${esc(op['x-scope'])}</code>` : ''}</p>
${op.requestBody ? `<details><summary>Request body</summary>${json(Object.values(op.requestBody.content as Record<string, { schema: unknown }>)[0].schema)}</details>` : ''}
<details><summary>Answers</summary><ul>${responses}</ul>${json(op.responses)}</details></section>`;
      const tag = (op.tags as string[])[0];
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const nav = [...byTag.keys()].map((tag) => `<a href="#tag-${esc(tag)}">${esc(tag)}</a>`).join(' · ');
  const sections = [...byTag].map(([tag, items]) => `<h2 id="tag-${esc(tag)}">/${esc(tag)}</h2>${items.join('\n')}`).join('\n');
  const hooks = Object.entries(doc.webhooks)
    .map(
      ([kind, item]) =>
        `<section><h3><code>${esc(kind)}</code></h3><p>${esc(item.post.summary)}</p><details><summary>Payload</summary>${json(item.post.requestBody.content['application/json'].schema)}</details></section>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d1d1f}code,pre{font:13px ui-monospace,monospace}pre{background:#f5f5f7;padding:.75rem;overflow:auto;border-radius:6px}
section{border-top:1px solid #e5e5ea;padding:.5rem 0}.m{display:inline-block;min-width:4.5rem;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px 6px}
.get{background:#2e7d32}.post{background:#1565c0}.patch{background:#ef6c00}.delete{background:#c62828}.meta{color:#6e6e73}h2{margin-top:2rem}</style></head>
<body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description)}</p><p>The machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p><nav>${nav} · <a href="#webhooks">webhooks</a></nav>
${sections}<h2 id="webhooks">Webhook events</h2>${hooks}</body></html>`;
}
