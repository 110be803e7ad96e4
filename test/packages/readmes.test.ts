// The README each package ships stands alone on npm: what `npm pack --dry-run` lists (the package's `files`, no tarball
// made, no script run) is all an npm user gets, so every relative link of the README must be one of those files, and
// the README must not send its reader to the repository's own files (its docs/, its design notes, the root README,
// sources, tests). Its first example is priced on the server (order-id or checkout-id), never an amount set by the
// page. Needs `npm run build` first (dist/ is part of each package's list).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGES = ['widget', 'server/merchant', 'server/provider'];

/** The paths `npm pack` would put in the package's tarball, from the package's own `files` (and npm's rules). */
function packedFiles(dir: string): Set<string> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: join(ROOT, dir),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [pack] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  return new Set(pack.files.map((file) => file.path));
}

/** The README without its code blocks: links are read from the prose. */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** Every link target of the README: markdown links and images, and HTML href/src. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  return [
    ...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]),
    ...[...text.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]),
  ];
}

const isRelative = (target: string) => !/^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(target);

/** What names a file of the repository that no npm user has. */
const REPOSITORY_ONLY: Array<[RegExp, string]> = [
  [/\bdocs\/[\w.-]+\.md\b/, "the repository's docs/ pages"],
  [/\bDESIGN\.md\b|\bARCHITECTURE\.md\b/, "the repository's design notes"],
  [/\broot README\b|\bthe project's README\b/i, "the repository's root README"],
  [/\bkasir repository\b/i, 'the repository'],
  [/\btest\/[\w/.-]+\.(test\.)?ts\b/, "the repository's tests"],
  [/\b(widget|server|demo)\/[\w/.-]+\.ts\b/, "the repository's sources"],
];

for (const dir of PACKAGES) {
  const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
    name: string;
    repository?: unknown;
    homepage?: string;
  };
  const readme = readFileSync(join(ROOT, dir, 'README.md'), 'utf8');

  describe(`${manifest.name}'s README`, () => {
    it("links only to files of the package (or to absolute URLs), as npm's file list has them", () => {
      const files = packedFiles(dir);
      assert.ok(files.has('README.md') && files.has('package.json'), [...files].join(', '));
      const missing = linkTargets(readme)
        .filter(isRelative)
        .map((target) => decodeURIComponent(target.split('#')[0]).replace(/^\.\//, ''))
        .filter((path) => path && !files.has(path) && ![...files].some((file) => file.startsWith(`${path}/`)));
      assert.deepEqual(missing, [], `${manifest.name}'s README links to files its package does not ship`);
    });

    it('ships the guides it links to, each linking only to files of the package', () => {
      const files = packedFiles(dir);
      const guides = [...files].filter((file) => /^guides\/[\w-]+\.md$/.test(file));
      assert.ok(guides.length > 0, `${manifest.name} ships no guides/ (the build makes them from docs/)`);
      const linked = linkTargets(readme).filter((target) => target.startsWith('guides/'));
      assert.ok(linked.length > 0, `${manifest.name}'s README links to none of its guides`);
      const broken = guides.flatMap((guide) =>
        linkTargets(readFileSync(join(ROOT, dir, guide), 'utf8'))
          .filter(isRelative)
          .map((target) => decodeURIComponent(target.split('#')[0]!))
          .filter((path) => path && !files.has(posix.normalize(`guides/${path}`)))
          .map((path) => `${guide} -> ${path}`),
      );
      assert.deepEqual(broken, [], `${manifest.name}'s guides link to files its package does not ship`);
      // A package's README is named as its reader knows it, never by the repository's path to it.
      const repositoryReadmes = guides.flatMap((guide) =>
        (readFileSync(join(ROOT, dir, guide), 'utf8').match(/\b(server\/\w+|widget)\/README\.md\b/g) ?? []).map(
          (path) => `${guide}: ${path}`,
        ),
      );
      assert.deepEqual(repositoryReadmes, [], `${manifest.name}'s guides name READMEs by repository paths`);
    });

    it("names none of the repository's own files", () => {
      const found = REPOSITORY_ONLY.flatMap(([pattern, what]) => {
        const match = readme.match(pattern);
        return match ? [`${what}: "${match[0]}"`] : [];
      });
      assert.deepEqual(found, [], `${manifest.name}'s README points npm users at what they do not get`);
    });

    it('points at the repository by absolute URL only when package.json names one', () => {
      if (manifest.repository || manifest.homepage) return;
      assert.doesNotMatch(readme, /https?:\/\/(www\.)?(github|gitlab)\.com\//, 'no repository in package.json');
    });

    it("prices its first example on the shop's server: order-id or checkout-id, no amount on the element", () => {
      const first = readme.match(/<kasir-checkout\s[^>]*>/);
      if (!first) return; // a package whose README shows no element
      assert.match(first[0], /\b(order-id|checkout-id)=/, first[0]);
      assert.doesNotMatch(first[0], /\bamount=/, first[0]);
    });
  });
}
