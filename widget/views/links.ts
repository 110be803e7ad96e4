// The links the element puts in front of a shopper (a wallet's payment request, an e-wallet's approval page) come from
// the widget API: a broken or hostile backend must not turn one into script on the shop's page (`javascript:`) or a
// page of another kind (`data:`, `file:`). Only these schemes are opened (WIDGET-API.md, "Links"):
// `https:`, the wallet payment requests `ethereum:` (EIP-681) and `web+stellar:` (SEP-7), the e-wallet app schemes
// the deposit names itself (`appSchemes`), and `http:` only on a page that is itself served over plain HTTP (a shop
// in development against the sandbox: no downgrade).

const ALWAYS = ['https:', 'ethereum:', 'web+stellar:'];

/** `url` may be opened: a URL of an allowed scheme, `schemes` (e.g. `["gojek:"]`) added to the usual ones. */
export function allowedLink(url: string, schemes: readonly string[] = []): boolean {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return false; // not a URL at all
  }
  if (protocol === 'http:') return location.protocol === 'http:';
  return [...ALWAYS, ...schemes.map((s) => s.toLowerCase().replace(/:?$/, ':'))].includes(protocol);
}
