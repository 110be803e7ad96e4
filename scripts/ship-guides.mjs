// Copies the guides of docs/ that a package's users need into that package's guides/ folder at build time, so that an
// install from npm carries them (a package has no repository URL to link to). The repository's docs/ stay the one
// source: guides/ is made, never edited, and not committed. In each copy a link to another shipped guide stays a link
// (the copies sit side by side), a mention of `docs/<guide>.md` loses its folder, and a link to anything the package
// does not ship (sources, internal notes) keeps its words and loses its target; a package's README is named as its
// reader knows it (this package's README, linked beside guides/, or another package's by name).
// Usage (from a package's build script): node ../../scripts/ship-guides.mjs
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const DOCS = resolve(import.meta.dirname, '../docs');

/** The guides each package ships, by package name. */
const GUIDES = {
  '@kasir/checkout': [
    'install',
    'theming',
    'events',
    'browsers',
    'server-rendering',
    'indonesian-payments',
    'security',
  ],
  '@kasir/merchant': [
    'install',
    'configuration',
    'orders',
    'refunds',
    'money',
    'security',
    'going-live',
    'observability',
    'server-rendering',
    'scaling',
    'idempotency',
    'events',
    'testing',
    'indonesian-payments',
    'dependencies',
  ],
  '@kasir/sandbox': ['testing', 'money', 'indonesian-payments', 'scaling', 'idempotency', 'dependencies'],
};
/** Each package's README by its path in the repository: a guide's mention of one becomes the package's name. */
const READMES = {
  'server/merchant/README.md': '@kasir/merchant',
  'server/provider/README.md': '@kasir/sandbox',
  'widget/README.md': '@kasir/checkout',
};
/** Files beside the guides that a guide links to. */
const EXTRAS = { '@kasir/merchant': ['grafana/kasir.json'] };

const packageDir = process.cwd();
const { name } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const guides = GUIDES[name];
if (!guides) throw new Error(`ship-guides: no guides listed for ${name}`);
const shipped = new Set([...guides.map((guide) => `${guide}.md`), ...(EXTRAS[name] ?? [])]);

const out = join(packageDir, 'guides');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

/** A link's target as a shipped file's name (with its anchor), or undefined when the package does not ship it. */
function shippedTarget(target) {
  const [path, anchor] = target.split('#');
  if (!path) return target; // an anchor in the same guide
  const file = path.replace(/^\.\//, '').replace(/^(\.\.\/)?docs\//, '');
  return shipped.has(file) ? `${file}${anchor ? `#${anchor}` : ''}` : undefined;
}

/** A package README's path as its reader knows it: this package's README (beside guides/), or another's by name. */
const readmeOf = (path) => (READMES[path] === name ? "this package's README" : `${READMES[path]}'s README`);

for (const guide of guides) {
  const text = readFileSync(join(DOCS, `${guide}.md`), 'utf8')
    .replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (link, bang, words, target) => {
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) return link; // an absolute URL
      const [path, anchor] = target.replace(/^(\.\.\/)+/, '').split('#');
      if (READMES[path] === name) return `[${readmeOf(path)}](../README.md${anchor ? `#${anchor}` : ''})`;
      if (READMES[path]) return readmeOf(path);
      const kept = shippedTarget(target);
      return kept ? `${bang}[${words}](${kept})` : words;
    })
    .replace(/\bdocs\/([\w-]+\.md)\b/g, (mention, file) => (shipped.has(file) ? file : mention))
    .replace(/\b(?:server\/merchant|server\/provider|widget)\/README\.md\b/g, (path) => readmeOf(path));
  writeFileSync(join(out, `${guide}.md`), text);
}
for (const extra of EXTRAS[name] ?? []) {
  mkdirSync(join(out, extra, '..'), { recursive: true });
  cpSync(join(DOCS, extra), join(out, extra));
}
console.log(`ship-guides: ${name}: ${shipped.size} files in ${basename(out)}/`);
