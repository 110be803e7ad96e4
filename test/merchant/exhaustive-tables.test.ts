// The tables that map a kind or an event across the packages, and what happens past their ends. A new method kind or
// webhook event fails to compile here (the type checks below) or fails a test until every table has it; a payment
// type or event no table names is a loud error, never shown as a bank or dropped silently. And every method the
// catalog ships has its logo.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { MethodKind as WidgetMethodKind } from '../../widget/types';
import {
  methodKind,
  toWidgetCheckout,
  toWidgetDeposit,
  UnknownMethodKindError,
} from '../../server/common/widget-projection';
import { createLogger } from '../../server/common/log';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import { isWebhookEventType, type WebhookEventType } from '../../server/merchant/webhooks/receiver';
import { METHOD_KINDS } from '../../server/provider/deposits/method-kinds';
import { KINDS, type MethodKind as SandboxMethodKind } from '../../server/provider/instance/defaults';
import { DEPOSIT_WEBHOOKS, type DepositEventType } from '../../server/provider/webhooks/events';
import { PAYMENT_METHODS } from '../../server/provider/catalog/payment-methods';
import { logoSvg } from '../../server/provider/catalog/logos';
import { call, depositEvent, merchantApp, startUpstream, upstreamDeposit, type Upstream } from './support';

/** True when A and B are the same set of literals; `false` (and so a compile error below) otherwise. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// Compile-time: the sandbox's kinds are the widget's; the sandbox's webhook events are the merchant's (through the
// generated client types of the service's document).
const kindsAgree: Same<SandboxMethodKind, WidgetMethodKind> = true;
const eventsAgree: Same<DepositEventType, WebhookEventType> = true;

describe('method kinds: one table per side, no default', () => {
  it('the sandbox kinds are the widget kinds (checked by the compiler)', () => {
    assert.equal(kindsAgree, true);
  });

  it("every sandbox kind's depositPaymentType is that kind to the projection", () => {
    for (const kind of KINDS) assert.equal(methodKind(METHOD_KINDS[kind].depositPaymentType), kind);
  });

  it('a payment type no kind names is an UnknownMethodKindError, not a bank', () => {
    assert.throws(() => methodKind('paylater'), UnknownMethodKindError);
    assert.throws(() => methodKind(''), UnknownMethodKindError);
  });

  it('a checkout leaves out a method of an unknown kind, with one warning per type', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const method = (code: string, depositPaymentType: string) => ({
      depositPaymentType,
      bankCode: code,
      bankName: code,
      name: code,
      image: '',
      currency: 'IDR',
      paymentAmount: 10000,
      shopperFee: 0,
      available: true,
    });
    const session = {
      id: 'c1',
      inputCurrency: 'IDR',
      orderAmount: '10000',
      feesPaidBy: 'merchant' as const,
      expiresAt: new Date().toISOString(),
      methods: [method('BCA_VA', 'va'), method('KREDIVO', 'paylater'), method('AKULAKU', 'paylater')],
    };
    const shown = () => toWidgetCheckout(session, { events: false, now: new Date(), deposit: null }).methods;
    try {
      assert.deepEqual(
        shown().map((m) => [m.code, m.kind]),
        [['BCA_VA', 'va']],
      );
      shown();
      // A process warning is emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /paylater.*KREDIVO/);
  });

  it('a deposit whose method is unknown takes its kind from its details; details that tell none throw', () => {
    const deposit = (paymentFiat: Record<string, string>, bankCode: string) => ({
      ...upstreamDeposit(randomUUID(), 'pending'),
      paymentFiat: { bankCode, ...paymentFiat },
    });
    const kindOf = (d: ReturnType<typeof deposit>) => toWidgetDeposit(d, { feesPaidBy: 'merchant' }).method.kind;
    assert.equal(kindOf(deposit({ accountNumber: '3935800000000001' }, 'BCA_VA')), 'va');
    assert.equal(kindOf(deposit({ accountNumber: '8730012345', uniqueCode: '123' }, 'BCA_TRANSFER')), 'bank');
    assert.equal(kindOf(deposit({ qrData: '000201' }, 'QRIS')), 'qris');
    assert.equal(kindOf(deposit({ flow: 'push', mobileNumber: '+6281234567890' }, 'OVO')), 'ewallet');
    assert.throws(() => kindOf(deposit({}, 'SOMETHING')), UnknownMethodKindError);
    // Its method described with a type no kind names: the details tell, never a default.
    const described = toWidgetDeposit(deposit({ accountNumber: '3935800000000001', billKey: '1' }, 'NEW_VA'), {
      feesPaidBy: 'merchant',
      method: { depositPaymentType: 'paylater', bankCode: 'NEW_VA', bankName: 'New', image: '' },
    });
    assert.equal(described.method.kind, 'va');
  });
});

describe('logos: every brand the catalog ships', () => {
  it('has a badge for each catalog method', () => {
    for (const m of PAYMENT_METHODS) assert.ok(logoSvg(m.logo), `${m.code}: ${m.logo}`);
  });
});

describe('webhook events: the sandbox sends what the merchant knows', () => {
  it("the sandbox's events are the merchant's (checked by the compiler) and each is known at run time", () => {
    assert.equal(eventsAgree, true);
    for (const type of Object.keys(DEPOSIT_WEBHOOKS)) assert.ok(isWebhookEventType(type), type);
    assert.equal(isWebhookEventType('deposit.refunded'), false);
    assert.equal(isWebhookEventType('toString'), false);
  });

  describe('an event type the receiver does not know', () => {
    let up: Upstream;
    before(async () => {
      up = await startUpstream();
    });
    after(async () => {
      await up.close();
    });

    it('is refused (200, refused: true) with one warning naming it, and runs no hook', async () => {
      const lines: string[] = [];
      const destination = new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      let hooks = 0;
      const app = merchantApp(up, {
        onDepositCompleted: () => {
          hooks++;
        },
        logger: createLogger('test', { level: 'warn', destination }),
      });
      const id = randomUUID();
      const body = JSON.parse(depositEvent(upstreamDeposit(id, 'completed'))) as Record<string, unknown>;
      body.type = 'deposit.refunded';
      const text = JSON.stringify(body);
      const headers = {
        'Content-Type': 'application/json',
        ...webhookHeaders(up.provider.credentials.webhookSecret, `msg_${id}`, text),
      };
      const answer = await call(app, 'POST', '/api/webhooks/kasir', text, headers);
      assert.equal(answer.status, 200, answer.text);
      assert.equal((answer.json as { refused?: boolean }).refused, true);
      assert.equal(hooks, 0);
      const warnings = lines.filter((l) => l.includes('deposit.refunded'));
      assert.equal(warnings.length, 1, lines.join('\n'));
      assert.match(warnings[0], /"level":40/);
    });
  });
});
