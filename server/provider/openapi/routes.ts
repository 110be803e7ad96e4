// The API reference at /docs: a page of our own, rendered on the server from the service's OpenAPI document (the one
// at /v1/openapi.json), with no script and no dependency. Swagger UI did this before; its package pulls @scarf/scarf,
// whose install script reports every install of the sandbox, and the viewers that could replace it either pull the
// same (rapidoc, through swagger-client, a large install) or ship an analytics library of their own (redoc 3).
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { createRouter } from '../http/errors.js';
import { htmlPage } from '../http/page.js';

type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;
/** The parts of an OpenAPI 3.1 document the page reads (loosely typed: it is JSON). */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** How deep nested objects are spelled out before the page names their type only. */
const MAX_DEPTH = 4;

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.25rem 4rem;color:#1d2433}
h1{margin-bottom:.25rem}h2{margin-top:2.5rem;border-bottom:1px solid #d5dae3}code,.m{font-family:ui-monospace,monospace}
details{border:1px solid #d5dae3;border-radius:8px;margin:.5rem 0;padding:.25rem .75rem}summary{cursor:pointer;padding:.25rem 0}
.m{display:inline-block;min-width:4.5rem;font-weight:700;text-transform:uppercase}.get{color:#0b6e4f}.post{color:#0b5cd5}
.patch,.put{color:#8a5a00}.delete{color:#b42318}.dep{text-decoration:line-through}table{border-collapse:collapse;width:100%;margin:.5rem 0}
td,th{text-align:left;vertical-align:top;border-top:1px solid #eef0f4;padding:.25rem .5rem}ul.f{margin:.25rem 0;padding-left:1.25rem}
.t{color:#5b6475}.req{color:#b42318}nav a{margin-right:1rem}`;

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const refName = (ref: string) => ref.split('/').at(-1) ?? ref;
const anchor = (text: string) => text.replace(/[^A-Za-z0-9_-]+/g, '-');

/** A schema's type in a few words: a named schema links to its entry. */
function typeOf(schema: Json | undefined): Markup {
  if (!schema) return html``;
  if (schema.$ref) return html`<a href="#schema-${anchor(refName(schema.$ref))}">${refName(schema.$ref)}</a>`;
  if (schema.enum) return html`${schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ')}`;
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return html`${alternatives.map((s: Json, i: number) => html`${i ? ' or ' : ''}${typeOf(s)}`)}`;
  if (schema.type === 'array') return html`array of ${typeOf(schema.items)}`;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  return html`${type}${schema.format ? ` (${schema.format})` : ''}`;
}

/** An object's fields as a nested list (name, type, required, description); other schemas as their type. */
function fields(schema: Json | undefined, depth = 0): Markup {
  if (!schema) return html``;
  const object = schema.type === 'array' && schema.items?.properties ? schema.items : schema;
  if (!object.properties || depth > MAX_DEPTH) return html`<span class="t">${typeOf(schema)}</span>`;
  const required = new Set<string>(object.required ?? []);
  return html`${schema !== object ? html`<span class="t">array of</span>` : ''}<ul class="f">${Object.entries(
    object.properties as Record<string, Json>,
  ).map(
    ([name, field]) => html`<li>
<code>${name}</code> <span class="t">${typeOf(field)}</span>${required.has(name) ? html` <span class="req">required</span>` : ''}${field.description ? html`: ${field.description}` : ''}
${field.properties || field.items?.properties ? fields(field, depth + 1) : ''}</li>`,
  )}</ul>`;
}

/** A JSON body's fields; a body that is one named schema is spelled out too (with a link to its entry). */
function body(content: Json | undefined, schemas: Json): Markup {
  const schema = content?.['application/json']?.schema as Json | undefined;
  if (!schema) return html``;
  const named = schema.$ref ? schemas[refName(schema.$ref)] : undefined;
  return named?.properties ? html` ${typeOf(schema)}${fields(named)}` : html` ${fields(schema)}`;
}

function operation(path: string, method: string, op: Json, schemes: Json, schemas: Json): Markup {
  const security = (op.security ?? []) as Json[];
  const auth = security.length
    ? security
        .map((s) =>
          Object.keys(s)
            .map((k) => schemes[k]?.name ?? k)
            .join(' + '),
        )
        .join(', or ')
    : 'none';
  const parameters = (op.parameters ?? []) as Json[];
  return html`<details id="op-${anchor(op.operationId ?? `${method}-${path}`)}">
<summary><span class="m ${method}">${method}</span> <code class="${op.deprecated ? 'dep' : ''}">${path}</code> ${op.summary ?? ''}${op.deprecated && !/deprecated/i.test(op.summary ?? '') ? ' (deprecated)' : ''}</summary>
${op.description ? html`<p>${op.description}</p>` : ''}
<p><strong>Authentication:</strong> ${auth}</p>
${
  parameters.length
    ? html`<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>About</th></tr>${parameters.map(
        (p) => html`<tr>
<td><code>${p.name}</code>${p.required ? html` <span class="req">required</span>` : ''}</td><td>${p.in}</td><td>${typeOf(p.schema)}</td><td>${p.description ?? p.schema?.description ?? ''}</td></tr>`,
      )}</table>`
    : ''
}
${op.requestBody ? html`<p><strong>Body</strong> (JSON)${op.requestBody.required ? '' : ', optional'}:</p>${body(op.requestBody.content, schemas)}` : ''}
<p><strong>Answers</strong></p>
<table>${Object.entries((op.responses ?? {}) as Record<string, Json>).map(([status, response]) => html`<tr><td><code>${status}</code></td><td>${response.description ?? ''}${body(response.content, schemas)}</td></tr>`)}</table>
</details>`;
}

/** The whole reference from the document: operations grouped by tag, then the webhooks, then the named schemas. */
function referencePage(doc: Json): Markup {
  const schemes = (doc.components?.securitySchemes ?? {}) as Json;
  const schemas = (doc.components?.schemas ?? {}) as Json;
  const groups = new Map<string, Markup[]>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tag = (op.tags?.[0] as string | undefined) ?? 'Other';
      groups.set(tag, [
        ...(groups.get(tag) ?? []),
        operation(path.replace(/\{(\w+)\}/g, ':$1'), method, op, schemes, schemas),
      ]);
    }
  }
  const webhooks = Object.entries((doc.webhooks ?? {}) as Record<string, Json>);
  return htmlPage({
    title: 'kasir payment service: API reference',
    head: html`<style>${raw(STYLE)}</style>`,
    body: html`<h1>${doc.info?.title ?? 'API reference'}</h1>
<p>${doc.info?.description ?? ''} Base URL: <code>${doc.servers?.[0]?.url ?? ''}</code>. The machine-readable document: <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
<nav>${[...groups.keys()].map((tag) => html`<a href="#tag-${anchor(tag)}">${tag}</a>`)}${webhooks.length ? html`<a href="#webhooks">Webhooks</a>` : ''}<a href="#schemas">Schemas</a></nav>
<h2>Signed requests and tokens</h2>
<table>${Object.entries(schemes).map(([name, s]) => html`<tr><td><code>${s.name ?? name}</code></td><td>${s.type === 'http' ? `${s.scheme} ${s.bearerFormat ?? ''}` : `header`}</td><td>${s.description ?? ''}</td></tr>`)}</table>
${[...groups].map(([tag, ops]) => html`<h2 id="tag-${anchor(tag)}">${tag}</h2>${ops}`)}
${
  webhooks.length
    ? html`<h2 id="webhooks">Webhooks</h2>${webhooks.map(
        ([
          name,
          item,
        ]) => html`<details id="webhook-${anchor(name)}"><summary><span class="m post">post</span> <code>${name}</code> ${item.post?.summary ?? ''}</summary>
${item.post?.description ? html`<p>${item.post.description}</p>` : ''}${body(item.post?.requestBody?.content, schemas)}</details>`,
      )}`
    : ''
}
<h2 id="schemas">Schemas</h2>
${Object.entries(schemas).map(([name, schema]: [string, Json]) => html`<details id="schema-${anchor(name)}"><summary><code>${name}</code></summary>${schema.description ? html`<p>${schema.description}</p>` : ''}${fields(schema)}</details>`)}`,
  });
}

/** The API reference at /docs, rendered once per process from the document `documentOf` builds. */
export function docsRoutes(documentOf: () => Json) {
  const router = createRouter();
  let page: string | undefined;
  router.get('/docs', async (c) => {
    page ??= String(await referencePage(documentOf()));
    c.header('Content-Security-Policy', CSP);
    c.header('Cache-Control', 'no-cache');
    return c.html(page);
  });
  return router;
}
