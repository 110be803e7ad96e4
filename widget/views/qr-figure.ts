// A QR code as an inline SVG in `part="qr"` (the QRIS payload, a crypto wallet's payment request): encoded once per
// text, drawn with crisp square modules and its quiet zone. Part of the views that show a code, not of the first paint.
import { html, type TemplateResult } from 'lit';
import { QUIET, qrPath } from './qr.js';

export { qrStyles } from './qr-styles.js';

/** Codes drawn, by text: each is encoded once, not on every render (the countdown renders each second). */
const drawn = new Map<string, { d: string; size: number }>();

/** The code of `data` as an SVG path and its size in modules (without the quiet zone). */
export const qrCode = (data: string) => drawn.get(data) ?? drawn.set(data, qrPath(data)).get(data)!;

/** The figure of `data`'s code, named `label` for screen readers. */
export const qrFigure = (data: string, label: string): TemplateResult => {
  const { d, size } = qrCode(data);
  const box = size + 2 * QUIET;
  // A whole number of CSS pixels per module (about 250 px in all), so crisp edges give every module one size.
  const px = box * Math.max(3, Math.floor(250 / box));
  return html`<figure part="qr">
    <svg role="img" aria-label=${label} viewBox="${-QUIET} ${-QUIET} ${box} ${box}" width=${px} height=${px} shape-rendering="crispEdges">
      <path d=${d} fill="#000" />
    </svg>
  </figure>`;
};
