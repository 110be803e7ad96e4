// What `kasir-sandbox pay | expire | decline | deposits | webhooks | resend` and startSandbox's pay(), expire(), decline() and webhooks() do:
// calls to a running sandbox over HTTP, signed with the merchant's credentials of sandbox.json (docs/design.md, "Signed
// requests"), through the interface's endpoints and the sandbox's own (sandbox/routes.ts). One implementation for both.
import { signedRequestHeaders } from '../../common/request-signing.js';
import type { WebhookAttempt } from '../webhooks/history.js';
import type { DepositView } from '../deposits/view.js';
import type { Page } from '../openapi/pagination.js';

export type { WebhookAttempt };

/** A request the sandbox refused, or a sandbox that did not answer: the message says which and what to do. */
class SandboxRequestError extends Error {
  override name = 'SandboxRequestError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** What the client needs of sandbox.json. */
export interface SandboxConnection {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

type DepositStatus = DepositView['status'];

export class SandboxClient {
  constructor(private readonly connection: SandboxConnection) {}

  /** A signed call; answers the envelope's data, or throws a SandboxRequestError with the service's message. */
  private async call<T>(method: string, target: string, body?: unknown): Promise<T> {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const { baseUrl, clientId, clientSecret } = this.connection;
    let res: Response;
    try {
      res = await fetch(`${baseUrl}${target}`, {
        method,
        headers: {
          ...signedRequestHeaders(clientId, clientSecret, method, target, raw),
          ...(raw ? { 'Content-Type': 'application/json' } : {}),
        },
        body: raw || undefined,
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new SandboxRequestError(
        `No sandbox answers at ${baseUrl} (${code}): is it running? (kasir-sandbox start, or npm start)`,
      );
    }
    const text = await res.text();
    let answer: { message?: unknown; data?: unknown } | undefined;
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      /* not JSON: said below */
    }
    if (!res.ok) {
      const message = typeof answer?.message === 'string' ? answer.message : text.slice(0, 200) || res.statusText;
      throw new SandboxRequestError(`${method} ${target}: ${res.status} ${message}`, res.status);
    }
    if (!answer)
      throw new SandboxRequestError(`${method} ${target}: the answer is not JSON (is ${baseUrl} a kasir sandbox?)`);
    return answer.data as T;
  }

  /** Newest first, `limit` at most (10 by default), of one status or all. */
  async deposits(query: { status?: DepositStatus; limit?: number } = {}): Promise<DepositView[]> {
    const params = new URLSearchParams({ sort: '-createdAt', limit: String(query.limit ?? 10) });
    if (query.status) params.set('status', query.status);
    return (await this.call<Page<DepositView>>('GET', `/v1/deposit?${params}`)).docs;
  }

  /** A deposit by its depositId (a checkout's deposit has the checkout's id), or `latest`: the newest pending one. */
  async deposit(id: string): Promise<DepositView> {
    if (id === 'latest') {
      const [newest] = await this.deposits({ status: 'pending', limit: 1 });
      if (!newest)
        throw new SandboxRequestError(
          'No pending deposit: create one first (a checkout gets its deposit when the shopper chooses a method)',
        );
      return newest;
    }
    try {
      return await this.call<DepositView>('GET', `/v1/deposit/${encodeURIComponent(id)}`);
    } catch (err) {
      if (err instanceof SandboxRequestError && err.status === 404) {
        throw new SandboxRequestError(
          `No deposit ${id}: give a depositId or a checkout id whose shopper chose a method (kasir-sandbox deposits lists them)`,
          404,
        );
      }
      throw err;
    }
  }

  /**
   * A payment to a pending deposit (`latest`: the newest): without an amount, exactly what is due (the sandbox status
   * update); with one, that amount (the payments endpoint); with a currency or method, money to that method's details,
   * one the deposit has or had before a switch (docs/money.md). Answers the updated deposit.
   */
  async pay(
    id: string,
    options: { amount?: number | string; currency?: string; method?: string } = {},
  ): Promise<DepositView> {
    const { depositId } = await this.deposit(id);
    const target = `/v1/deposit/${encodeURIComponent(depositId)}`;
    const { amount, currency, method } = options;
    if (amount === undefined && currency === undefined && method === undefined)
      return this.call<DepositView>('PATCH', target, { status: 'completed' });
    return this.call<DepositView>('POST', `${target}/payments`, {
      ...(amount === undefined ? {} : { amount: Number(amount) }),
      currency,
      method,
    });
  }

  /** Expires a pending deposit (`latest`: the newest) as its time running out would. Answers the updated deposit. */
  async expire(id: string): Promise<DepositView> {
    const { depositId } = await this.deposit(id);
    return this.call<DepositView>('PATCH', `/v1/deposit/${encodeURIComponent(depositId)}`, { status: 'expired' });
  }

  /**
   * A failed attempt to pay a pending deposit (`latest`: the newest; docs/indonesian-payments.md): declined by default,
   * or `insufficient_balance`, or `timeout`. The deposit stays pending. Answers it.
   */
  async decline(id: string, options: { reason?: string } = {}): Promise<DepositView> {
    const { depositId } = await this.deposit(id);
    return this.call<DepositView>('POST', `/v1/deposit/${encodeURIComponent(depositId)}/attempts`, {
      outcome: options.reason ?? 'declined',
    });
  }

  /** Webhook delivery attempts, newest first: the last `limit` (20), or those after attempt `after`, of one deposit or all. */
  async webhooks(query: { limit?: number; after?: number; depositId?: string } = {}): Promise<WebhookAttempt[]> {
    const params = new URLSearchParams({ limit: String(query.limit ?? 20) });
    if (query.after !== undefined) params.set('after', String(query.after));
    if (query.depositId !== undefined) params.set('depositId', query.depositId);
    return this.call<WebhookAttempt[]>('GET', `/sandbox/webhooks?${params}`);
  }

  /** Sends a deposit's last webhook again (a new message, the same payload). */
  async resend(depositId: string): Promise<{ id: string; resendOf: string }> {
    return this.call('POST', `/sandbox/deposits/${encodeURIComponent(depositId)}/resend`);
  }
}
