// The links the element puts in front of a shopper (a wallet's payment request, an e-wallet's approval page) come from
// the widget API: a broken or hostile backend must not turn one into script on the shop's page (`javascript:`) or a
// page of another kind (`data:`, `file:`, `blob:`). Only these schemes are opened (WIDGET-API.md, "Links"): `https:`,
// the wallet payment requests `ethereum:` (EIP-681) and `web+stellar:` (SEP-7), each e-wallet's own app scheme from
// the fixed list below (never one an answer names: its `appSchemes` opens nothing), and `http:` only on a page that
// is itself served over plain HTTP (a shop in development against the sandbox: no downgrade).

const ALWAYS = ['https:', 'ethereum:', 'web+stellar:'];

/** The app schemes each e-wallet's own app answers to, by its method code: the only ones opened besides ALWAYS. */
const WALLET_APP_SCHEMES: Readonly<Record<string, readonly string[]>> = {
  GOPAY: ['gojek:'],
  SHOPEEPAY: ['shopeeid:'],
  OVO: ['ovo:'],
  DANA: ['dana:'],
  LINKAJA: ['linkaja:'],
};

/** `url` may be opened for a deposit of the method `method` (its code): a URL of a scheme allowed for it. */
export function allowedLink(url: string, method: string): boolean {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return false; // not a URL at all
  }
  if (protocol === 'http:') return location.protocol === 'http:';
  return (
    ALWAYS.includes(protocol) ||
    (Object.hasOwn(WALLET_APP_SCHEMES, method) && WALLET_APP_SCHEMES[method]!.includes(protocol))
  );
}
