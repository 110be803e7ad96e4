// What the widget suites share: a fresh page per test with the fake widget API installed, the element mounted with its
// attributes, its parts and phases, a choice of method, the QR code read as a wallet's camera reads it, and the
// clipboard recorded.
import { fixture, waitUntil } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../widget/kasir-checkout';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import type jsQRType from 'jsqr';
import { FakeApi, type FakeOptions } from './fake-api';

/**
 * In the calling `describe`: each test on a fresh page (storage cleared, no checkout or last choice remembered) with
 * a fake widget API installed, handed to `use`, and uninstalled after the test.
 */
export function withFakeApi(use: (api: FakeApi) => void, options?: FakeOptions) {
  let api: FakeApi;
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    use((api = new FakeApi(options).install()));
  });
  afterEach(() => api.uninstall());
}

/** `<kasir-checkout>` on the page, with `attrs` over endpoint="/api" amount="150000" currency="IDR" locale="en" (null: left out). */
export async function mount(attrs: Record<string, string | null> = {}): Promise<KasirCheckout> {
  const el = document.createElement('kasir-checkout');
  for (const [name, value] of Object.entries({
    endpoint: '/api',
    amount: '150000',
    currency: 'IDR',
    locale: 'en',
    ...attrs,
  })) {
    if (value !== null) el.setAttribute(name, value);
  }
  await fixture(el);
  return el;
}

export const part = (el: KasirCheckout, name: string) => el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
export const parts = (el: KasirCheckout, name: string) => [
  ...el.shadowRoot!.querySelectorAll<HTMLElement>(`[part~="${name}"]`),
];
export const method = (el: KasirCheckout, code: string) =>
  el.shadowRoot!.querySelector<HTMLButtonElement>(`[part="method"][data-method="${code}"]`)!;
/** A node's text as read: whitespace (no-break spaces too) collapsed. */
export const text = (node: Element | null | undefined) => (node?.textContent ?? '').replace(/[\s\u00a0]+/g, ' ').trim();
export const reached = (el: KasirCheckout, state: string, timeout = 3000) =>
  waitUntil(() => el.state === state, `never reached ${state}`, { timeout });

/**
 * Waits until no status check is in flight: the element checks at once on a pending screen, and "check now" is
 * disabled meanwhile (and gone once the payment is over).
 */
export const checked = (el: KasirCheckout, timeout = 3000) =>
  waitUntil(
    () => !part(el, 'check-now') || part(el, 'check-now')!.matches(':enabled'),
    'the status check in flight never ended',
    { timeout },
  );

/** Chooses a method once the list offers it, and waits for its pending screen. */
export async function choose(el: KasirCheckout, code: string) {
  await reached(el, 'choosing');
  await waitUntil(() => method(el, code) && !method(el, code).disabled, `${code} is not offered`);
  method(el, code).click();
  await reached(el, 'pending');
  await el.updateComplete;
}

/** jsQR ships as a UMD script only: loaded once as a classic script, it sets window.jsQR. */
let jsQR: typeof jsQRType | undefined;
export async function loadJsQr() {
  if (jsQR) return jsQR;
  await new Promise((resolve, reject) => {
    const script = Object.assign(document.createElement('script'), {
      src: '/node_modules/jsqr/dist/jsQR.js',
      onload: resolve,
      onerror: reject,
    });
    document.head.append(script);
  });
  return (jsQR = (window as unknown as { jsQR: typeof jsQRType }).jsQR);
}

/** The text of the element's QR code (`part="qr"`): its SVG drawn on a white canvas with a margin, then read by jsQR. */
export async function readQr(el: KasirCheckout): Promise<string | null> {
  const decode = await loadJsQr();
  const svg = part(el, 'qr')!.querySelector('svg')!;
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
  await image.decode();
  const margin = 40;
  const [width, height] = [image.naturalWidth + 2 * margin, image.naturalHeight + 2 * margin];
  const ctx = new OffscreenCanvas(width, height).getContext('2d')!;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(image, margin, margin);
  return decode(ctx.getImageData(0, 0, width, height).data, width, height)?.data ?? null;
}

/** Records what the copy buttons write to the clipboard. */
export function recordClipboard() {
  const copied: string[] = [];
  const original = navigator.clipboard.writeText;
  navigator.clipboard.writeText = async (value: string) => void copied.push(value);
  return { copied, restore: () => (navigator.clipboard.writeText = original) };
}

/** The page's own setTimeout, taken before a test's fake clock may replace it. */
const realSetTimeout = window.setTimeout.bind(window);
const keyNames: Record<string, string> = { Space: ' ' };

/**
 * Presses a key or a chord written as Playwright writes it ("Tab", "Shift+Tab", "Enter") in any of the three
 * browsers (test/support/keyboard-plugin.mjs: sendKeys takes a chord in Chromium only), and returns once the page
 * has handled it: every key of it back up (or the focus gone out of the page), then one more turn for what a key's
 * release does (Space clicks a button). Firefox and WebKit answer the command before the page has seen the keys.
 */
export async function pressKeys(chord: string) {
  const keys = chord.split('+');
  const up = new Set(keys.map((k) => keyNames[k] ?? k));
  const handled = new Promise<void>((resolve, reject) => {
    const done = () => {
      removeEventListener('keyup', onKeyUp, true);
      removeEventListener('blur', done);
      resolve();
    };
    const onKeyUp = (event: KeyboardEvent) => {
      up.delete(event.key);
      if (!up.size) done();
    };
    addEventListener('keyup', onKeyUp, true);
    addEventListener('blur', done);
    realSetTimeout(() => reject(new Error(`the page never saw ${chord} go up in 5 s`)), 5000);
  });
  await executeServerCommand('press-chord', { keys });
  await handled;
  const channel = new MessageChannel();
  await new Promise((turn) => ((channel.port1.onmessage = turn), channel.port2.postMessage(0)));
}
