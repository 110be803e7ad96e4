// kasir.renderCheckout: a checkout's <kasir-checkout> as the page's own HTML. Lit's server rendering (@lit-labs/ssr)
// renders the element of the installed @kasir/checkout (an optional peer, loaded at the first call) from its own
// templates into a declarative shadow root, so the method list paints with the page; its `served` attribute holds
// the checkout and the words it was rendered with, from which the element's script takes over without asking again.
import { ApiError } from '../../common/errors.js';
import { isCheckoutId } from '../../common/widget-api.js';
import type { WidgetCheckout } from './views.js';

export interface RenderCheckoutOptions {
  /**
   * The shopper's language, `en` or `id` (default `en`). The element is rendered with it as its `locale` attribute:
   * the page's `lang` and the browser's language, which the element otherwise follows, are the browser's to know.
   */
  locale?: string;
  /** Renders the modal element (`modal`): nothing shows until its `open()`, which then needs no request. */
  modal?: boolean;
  /** The widget API as the page reaches it, the element's `endpoint` (default `/api`, where createKasirApi is mounted). */
  endpoint?: string;
  /**
   * The nonce of the page's Content-Security-Policy for styles: the shadow root's `<style>` carries it, so a page
   * without `'unsafe-inline'` styles shows the list styled before the script runs.
   */
  nonce?: string;
}

type Ssr = typeof import('@lit-labs/ssr');
type Element = typeof import('@kasir/checkout');
type Collect = (typeof import('@lit-labs/ssr/lib/render-result.js'))['collectResult'];

const NO_ELEMENT =
  'renderCheckout renders the element of @kasir/checkout, which is not installed: run `npm install @kasir/checkout` beside @kasir/merchant';

/** renderCheckout over a backend's checkout read (the widget API's GET /checkouts/:id). */
export function checkoutRenderer(getCheckout: (id: string) => Promise<WidgetCheckout>) {
  // Loaded once, at the first render: a backend that never renders loads neither the element nor Lit's server renderer.
  let modules: Promise<[Ssr, Element, Collect]> | undefined;
  const load = () =>
    (modules ??= Promise.all([
      import('@lit-labs/ssr'),
      import('@kasir/checkout').catch((err: unknown) => {
        modules = undefined; // installed later: the next call tries again
        throw new Error(NO_ELEMENT, { cause: err });
      }),
      import('@lit-labs/ssr/lib/render-result.js').then((m) => m.collectResult),
    ]));
  return async (checkoutId: string, options: RenderCheckoutOptions = {}): Promise<string> => {
    const { locale = 'en', modal = false, endpoint = '/api', nonce } = options;
    if (typeof checkoutId !== 'string' || !isCheckoutId(checkoutId))
      throw new ApiError(400, 'checkoutId: the id createCheckout answered');
    if (typeof endpoint !== 'string' || !endpoint)
      throw new ApiError(400, "endpoint: the widget API's URL or path, e.g. /api");
    if (nonce !== undefined && !/^[\w+/=-]+$/.test(nonce)) throw new ApiError(400, 'nonce: a base64 value');
    const [{ html, render }, element, collectResult] = await load();
    let served: string;
    try {
      served = await element.servedAttribute(await getCheckout(checkoutId), locale as never, modal);
    } catch (err) {
      if (err instanceof RangeError) throw new ApiError(400, err.message);
      throw err;
    }
    const markup = await collectResult(
      render(
        html`<kasir-checkout
          endpoint=${endpoint}
          checkout-id=${checkoutId}
          locale=${locale}
          ?modal=${modal}
          served=${served}
        ></kasir-checkout>`,
      ),
    );
    return nonce
      ? markup.replace('shadowrootmode="open"><style>', `shadowrootmode="open"><style nonce="${nonce}">`)
      : markup;
  };
}
