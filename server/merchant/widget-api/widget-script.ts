// GET /kasir-checkout.js and the chunks beside it (/kasir-checkout-<name>-<hash>.js): the script-tag build of
// @kasir/checkout (an optional peer of this package: installed beside it, it is served), loadable from any storefront
// origin; how it is served is server/common/widget-files.ts.
import { Hono } from 'hono';
import { WIDGET_ENTRY_FILE, WIDGET_FILE_PARAM, widgetFileServer } from '../../common/widget-files.js';
import { onNotFound } from '../http.js';

/** Serves the entry `file` at /kasir-checkout.js and the chunks in its directory beside it. */
export function widgetScriptRoutes(file: string | undefined = WIDGET_ENTRY_FILE) {
  const app = new Hono();
  const serve = widgetFileServer();
  app.on(['GET', 'HEAD'], `/${WIDGET_FILE_PARAM}`, async (c) => {
    // No entry: not built (or not installed), a 503. No chunk of that name: an unknown path, as anywhere else.
    return (
      (await serve(
        c,
        file,
        c.req.param('file'),
        file
          ? 'The widget is not built: run `npm run build`'
          : 'The widget script comes from @kasir/checkout, which is not installed: run `npm install @kasir/checkout` beside @kasir/merchant',
      )) ?? onNotFound(c)
    );
  });
  return app;
}
