// How a server-to-server call is signed. By default the scheme this project's payment service verifies (X-Client-ID,
// X-Timestamp, X-Signature: hex HMAC-SHA256 over `METHOD:PATH:BODYHASH:TIMESTAMP`, docs/configuration.md); a shop whose
// service signs otherwise (e.g. SNAP BI's HMAC-SHA512) passes its own `signRequest` and the client sends its headers.
import { signedRequestHeaders } from '../../common/request-signing.js';

/** What a signer gets: one call, exactly as it goes out. */
export interface SignableRequest {
  /** Upper case: GET, POST, PATCH, DELETE. */
  method: string;
  /** The path and query exactly as on the request line, e.g. `/v1/deposit?limit=1`. */
  path: string;
  /** The raw body sent ('' when there is none): hash these exact characters (UTF-8). */
  body: string;
  /** ISO 8601 UTC with milliseconds, strictly increasing per client (no two calls share one). */
  timestamp: string;
  clientId: string;
  clientSecret: string;
  /** The access token configured, if any: a scheme such as SNAP BI signs it in. */
  accessToken?: string;
}

/** Answers the headers that authenticate one call (they are added to Accept and Content-Type). */
export type RequestSigner = (request: SignableRequest) => Record<string, string> | Promise<Record<string, string>>;

/** The scheme this project's payment service (and its sandbox) verifies. */
export const defaultRequestSigner: RequestSigner = ({ method, path, body, timestamp, clientId, clientSecret }) =>
  signedRequestHeaders(clientId, clientSecret, method, path, body, timestamp);
