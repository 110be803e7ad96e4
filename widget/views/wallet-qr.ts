// The QR of a qr-or-app e-wallet on a wide screen (docs/indonesian-payments.md), with its encoder: a chunk of its own,
// loaded only when a wide screen shows such a code, so an e-wallet payment on a phone (the app link) downloads none of it.
export { qrFigure } from './qr-figure.js';
