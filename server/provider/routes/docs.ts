import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { html } from 'hono/html';
import { ApiError, createRouter } from '../http/errors.js';
import { htmlPage } from '../http/page.js';

// swagger-ui-dist, served from node_modules so the reference works offline.
const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Our own initializer, as a file (the page has no inline script).
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    persistAuthorization: false,
  });
});
`;

const PAGE = htmlPage({
  title: 'kasir payment service: API reference',
  head: html`<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">`,
  body: html`<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/initializer.js"></script>`,
});

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The interactive API reference at /docs (Swagger UI over /v1/openapi.json). */
export function docsRoutes() {
  const router = createRouter();
  const cache = new Map<string, Buffer>();

  router.get('/docs', (c) => {
    c.header('Content-Security-Policy', CSP);
    return c.html(PAGE);
  });
  router.get('/docs/initializer.js', (c) => c.body(INITIALIZER, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  router.get('/docs/:asset', async (c) => {
    const asset = c.req.param('asset');
    // Own keys only: `toString` and the like are no asset.
    const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
    if (!type) throw new ApiError(404, `Cannot GET /docs/${asset}`);
    let data = cache.get(asset);
    if (!data) {
      data = await readFile(join(SWAGGER_DIR, asset));
      cache.set(asset, data);
    }
    return c.body(new Uint8Array(data), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600' });
  });
  return router;
}
