// The widget API client (widget/WIDGET-API.md): envelopes unwrapped, failures as ApiError, ETags honoured.
import type { KasirErrorDetail, KasirErrorKind } from './events.js';

/**
 * A failure, as `kasir-error` tells it (KasirErrorDetail): `kind` (`network`: no answer; `config`: an attribute the
 * element cannot use, named by `message`; `server`: HTTP 5xx; `refused`: another 4xx), `status` when there was an
 * answer, `url` what was asked. An answer with no message is not the widget API's (a wrong endpoint: failures.ts).
 */
export class ApiError extends Error implements KasirErrorDetail {
  declare readonly kind: KasirErrorKind;
  declare readonly status?: number;
  declare readonly url?: string;
  // `message` unset is Error's empty one.
  constructor(detail: Omit<KasirErrorDetail, 'message'> & { message?: string }) {
    super();
    Object.assign(this, detail);
  }
}

/**
 * A failure as `kasir-error` tells it, where failures.ts does not: a lost connection, a read while pending (and an
 * exception that is no ApiError, with no kind: told as a lost connection, with its own words for the developers).
 */
export const detail = (
  { kind = 'network', message, status, url }: Partial<KasirErrorDetail>,
  fallback: string,
): KasirErrorDetail => ({ kind, message: message || fallback, status, url });

export class WidgetApi {
  /** Last answer and its ETag, per path, so an unchanged resource costs a 304 with no body. */
  private __cache = new Map<string, { etag: string; data: unknown }>();

  readonly endpoint: string;
  /** The order's token (`order-token`), sent with every POST: what opens and acts on a page's order (docs/security.md). */
  private __token?: string;
  constructor(endpoint: string, token?: string) {
    this.endpoint = endpoint;
    this.__token = token;
  }

  url(path: string) {
    return this.endpoint.replace(/\/+$/, '') + path;
  }

  /** Asks `path` (with `body`: a POST); `signal` aborts the request (a newer load or choice superseded it). */
  async call<T>(path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const cached = !body && this.__cache.get(path);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    if (body && this.__token) headers['x-kasir-order-token'] = this.__token;
    if (cached) headers['if-none-match'] = cached.etag;
    const url = this.url(path);
    let res: Response;
    try {
      res = await fetch(url, {
        headers,
        signal,
        // A read past every cache; a POST is not cached, and "no-store" on it would make Chromium skip the preflight
        // answer it holds (the element asks it ahead: kasir-checkout.ts).
        ...(body ? { method: 'POST', body: JSON.stringify(body) } : { cache: 'no-store' }),
      });
    } catch {
      throw new ApiError({ kind: 'network', url });
    }
    if (res.status === 304 && cached) return cached.data as T;
    const json = await res.json().catch(() => null);
    // Not the envelope (an HTML page, another API's JSON: no message): the endpoint is not the widget API.
    if (!res.ok || !json?.data)
      throw new ApiError({
        kind: res.status > 499 ? 'server' : 'refused',
        message: json?.message,
        status: res.status,
        url,
      });
    const etag = res.headers.get('etag');
    if (etag && !body) this.__cache.set(path, { etag, data: json.data });
    return json.data as T;
  }
}
