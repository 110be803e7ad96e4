// What a shopper downloads of the script-tag build (widget/dist/browser/, `npm run build`), measured the way a server
// sends it: each file gzipped on its own (Node's zlib, level 9). Read by the size test and by `npm run bench`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WIDGET_BUDGET_BYTES } from './harness';

/**
 * The first paint (the method list in the shopper's language): the entry, what it imports statically, and the larger
 * locale's words. At most 13 KB gzipped: Lit as published and one language (the measured sizes: docs/benchmarks.md,
 * "Where the targets stand").
 */
export const FIRST_PAINT_BUDGET_BYTES = 13 * 1024;

/** What a modal checkout (`modal`) adds to its first paint and to every payment: the dialog's chunk (widget/modal.ts). */
export const MODAL_BUDGET_BYTES = 0.75 * 1024;

/** The views of pending deposits, each a chunk the entry loads (a bank transfer is shown by the va view). */
export const VIEWS = ['va', 'qris', 'ewallet', 'crypto'] as const;
export type ViewName = (typeof VIEWS)[number];

/** The locales of the element's words, each a chunk the entry loads with the checkout. */
export const LOCALES = ['en', 'id'] as const;

/** All a full payment downloads (the first paint and the view's chunk), per view: the harness's 17 KB gzipped, 19 KB by crypto. */
export const FLOW_BUDGET_BYTES: Record<ViewName, number> = {
  va: WIDGET_BUDGET_BYTES,
  qris: WIDGET_BUDGET_BYTES,
  // The wallets' own flows (docs/indonesian-payments.md: a push's number entry and window, a QR or the app link, a
  // redirect, a failed attempt's panel) in one chunk; a QR's encoder loads apart, only on a wide screen. 18 KB:
  // these three flows do not fit in 17 KB (docs/benchmarks.md, "Where the targets stand").
  ewallet: 18 * 1024,
  crypto: 19 * 1024,
};

export const WIDGET_DIR = 'widget/dist/browser';
export const ENTRY = 'kasir-checkout.js';

export interface Download {
  /** The files, each downloaded once. */
  files: string[];
  raw: number;
  /** The sum of each file's gzipped size. */
  gz: number;
}

export interface WidgetBuild {
  /** Every file of the build, with its sizes. */
  files: Record<string, { raw: number; gz: number; code: string }>;
  /** The entry, its static imports and the larger locale's words: all the method list needs. */
  firstPaint: Download;
  /** The locales' chunks, by locale. */
  locales: Record<string, string>;
  /**
   * Per view the entry imports (va, qris, ewallet, crypto): the first paint plus the view's chunk and its static
   * imports, in the locale whose download is the larger.
   */
  flows: Record<string, Download & { locale: string }>;
  /** Each pending view's chunk per locale. */
  views: Record<string, Record<string, string>>;
  /** Per view: chunks it imports only on demand (the QRIS PNG download), not part of its flow. */
  onDemand: Record<string, string[]>;
  /** Chunks the entry imports that are neither views nor locales (the words of failures), loaded only when needed: in no flow. */
  entryOnDemand: string[];
}

/**
 * A chunk's view: `kasir-checkout-<view>-<hash>.js`, a pending view's `kasir-checkout-<view>-<locale>-<hash>.js` (the
 * hash is base36, no dashes); a locale's words: its locale.
 */
export const viewOf = (file: string) => localeOfChunk(file) ?? CHUNK.exec(file)?.[1];

/** The locale of a pending view's chunk (one per locale, with that language's words only). */
const localeOfView = (file: string) => CHUNK.exec(file)?.[2];

const CHUNK = new RegExp(`^kasir-checkout-(.+?)(?:-(${LOCALES.join('|')}))?-[a-z0-9]+\\.js$`);

/** A locale's words: kasir-checkout-words-<locale>.js, a name without a hash (a page may preload it). */
const localeOfChunk = (file: string) => /^kasir-checkout-words-([a-z]+)\.js$/.exec(file)?.[1];

/** The relative module specifiers a file imports statically (`import "./x.js"`, `from "./x.js"`) and dynamically (`import("./x.js")`). */
export function importsOf(code: string) {
  const q = '["\'`]';
  const names = (re: RegExp) => [...code.matchAll(re)].map((m) => m[1]);
  return {
    static: names(new RegExp(`(?:\\bfrom|\\bimport)\\s*${q}\\.\\/([\\w-]+\\.js)${q}`, 'g')),
    dynamic: names(new RegExp(`\\bimport\\(\\s*${q}\\.\\/([\\w-]+\\.js)${q}\\s*\\)`, 'g')),
    /** Any module specifier at all (relative or not), static or dynamic. */
    all: names(new RegExp(`(?:\\bfrom|\\bimport)\\s*\\(?\\s*${q}([^"'\`]+)${q}`, 'g')),
  };
}

export function measureWidget(dir = WIDGET_DIR): WidgetBuild {
  const files: WidgetBuild['files'] = {};
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const body = readFileSync(join(dir, name));
    files[name] = { raw: body.length, gz: gzipSync(body, { level: 9 }).length, code: body.toString('utf8') };
  }
  const closure = (roots: string[]) => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      if (!files[file]) throw new Error(`${file} is imported but not in ${dir}`);
      seen.add(file);
      importsOf(files[file].code).static.forEach(visit);
    };
    roots.forEach(visit);
    return [...seen];
  };
  const download = (roots: string[]): Download => {
    const list = closure(roots);
    return {
      files: list,
      raw: list.reduce((n, f) => n + files[f].raw, 0),
      gz: list.reduce((n, f) => n + files[f].gz, 0),
    };
  };
  if (!files[ENTRY]) throw new Error(`${join(dir, ENTRY)} is missing: run npm run build`);
  const dynamic = [...new Set(importsOf(files[ENTRY].code).dynamic)];
  const locales: WidgetBuild['locales'] = {};
  for (const chunk of dynamic)
    if ((LOCALES as readonly string[]).includes(viewOf(chunk) ?? '')) locales[viewOf(chunk)!] = chunk;
  // The shopper downloads one language: the larger one is counted.
  const words = Object.values(locales)
    .sort((a, b) => files[b].gz - files[a].gz)
    .slice(0, 1);
  const flows: WidgetBuild['flows'] = {};
  const views: WidgetBuild['views'] = {};
  const onDemand: WidgetBuild['onDemand'] = {};
  const entryOnDemand: string[] = [];
  for (const chunk of dynamic) {
    const view = viewOf(chunk) ?? chunk;
    if ((LOCALES as readonly string[]).includes(view)) continue;
    if (!(VIEWS as readonly string[]).includes(view)) {
      entryOnDemand.push(chunk);
      continue;
    }
    const locale = localeOfView(chunk) ?? '';
    (views[view] ??= {})[locale] = chunk;
    // A shopper downloads the view in their language, with that language's words for the first paint.
    const flow = { ...download([ENTRY, ...(locales[locale] ? [locales[locale]] : words), chunk]), locale };
    if (!flows[view] || flow.gz > flows[view].gz) flows[view] = flow;
    const imported = closure([chunk])
      .filter((f) => f !== ENTRY)
      .flatMap((f) => importsOf(files[f].code).dynamic);
    onDemand[view] = [...new Set([...(onDemand[view] ?? []), ...imported])];
  }
  return { files, firstPaint: download([ENTRY, ...words]), locales, flows, views, onDemand, entryOnDemand };
}
