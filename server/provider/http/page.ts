// The HTML shell of every page the service serves: the hosted checkout, the sandbox's e-wallet approval, the dashboard
// and the API reference. Written with hono/html: html`` escapes each value put in it, so text from a row (a shop's
// name, an id) cannot become markup; markup of our own is an html`` of its own (or raw(), for a constant such as a
// style, whose bytes its CSP hash covers).
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageParts {
  title: string;
  lang?: string;
  /** What follows the title in <head>: its style, stylesheets and module scripts. */
  head?: Markup;
  body: Markup;
}

export function htmlPage({ title, lang = 'en', head, body }: PageParts): Markup {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}
