// The style of a QR code's figure (`part="qr"`), apart from its encoder (qr-figure.ts): a view that shows a code only
// sometimes (a qr-or-app e-wallet on a wide screen) carries the style, and loads the encoder when it draws one.
import { css } from 'lit';

/** The figure's style (the views that show a code add it to theirs). */
export const qrStyles = css`
  [part='qr'] {
    justify-self: center;
    max-width: 100%;
    background: #fff;
    border: 1px solid var(--b);
    border-radius: calc(var(--r) - 4px);
    padding: 0.25rem;
  }
  /* The quiet zone white whatever the page's styles: a shop's ::part(qr) does not reach the svg. */
  [part='qr'] svg {
    display: block;
    max-width: 100%;
    height: auto;
    background: #fff;
  }
`;
