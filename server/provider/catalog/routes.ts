import { z } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { BANKS, CRYPTOS, FIAT_CURRENCIES } from './index.js';
import { logoSvg, logoUrl } from './logos.js';
import { bearerOrSignature } from '../auth/bearer.js';
import { BEARER, envelope, errorResponses, json, operation, PUBLIC, SIGNED } from '../openapi/operation.js';
import { ApiError, createRouter } from '../http/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import { signatureAuth } from '../auth/signature.js';

const BankSchema = z
  .object({
    bankCode: z.string().openapi({ example: 'BCA' }),
    bankName: z.string().openapi({ example: 'Bank Central Asia' }),
    currency: z.string().openapi({ example: 'IDR' }),
    country: z.string().openapi({ example: 'ID' }),
  })
  .openapi('Bank');

const CurrencySchema = z
  .object({
    _id: z.string(),
    id: z.string(),
    value: z.string(),
    currency: z.string(),
    countryCode: z.string(),
    logo: z.string(),
    name: z.string(),
    country: z.string(),
    symbol: z.string(),
    requireBankName: z.boolean(),
    requireIfsc: z.boolean(),
    requireIban: z.boolean(),
    requireAchOrWire: z.boolean(),
    requireAccountNumber: z.boolean(),
  })
  .openapi('CurrencyReference');

const CryptoSchema = z
  .object({
    _id: z.string(),
    id: z.string(),
    symbol: z.string(),
    name: z.string(),
    label: z.string(),
    address: z.string(),
    logo: z.string(),
    priceId: z.string(),
    chainId: z.number().int(),
    is_native: z.boolean(),
    decimal: z.number().int(),
    currencies: z.array(z.string()),
  })
  .openapi('CryptoReference');

/** An item of GET /v1/reference/currencies and of GET /v1/reference/cryptos. */
export type CurrencyReference = z.infer<typeof CurrencySchema>;
export type CryptoReference = z.infer<typeof CryptoSchema>;

/**
 * An empty value means "no filter" (as the interface has it for the reference lists); otherwise true/false,
 * case-insensitive.
 */
const optionalBoolean = z
  .string()
  .max(5)
  .optional()
  .refine((v) => v === undefined || /^(|true|false)$/i.test(v), { message: 'must be true or false' })
  .openapi({
    type: 'boolean',
    description: 'true: only tokens using the smart-contract proxy; false: only the others; empty: all',
  });

/** Deprecated endpoints answer with a Deprecation header (RFC 9745) and a Link to what replaces them. */
const deprecation = createMiddleware(async (c, next) => {
  await next();
  c.header('Deprecation', '@1735689600');
  c.header('Link', '</v1/deposit/payment-method>; rel="alternate"');
});

/**
 * The deprecated reference lists (GET /v1/reference/...), the banks (docs/design.md, "Quotes, banks, bank transfers")
 * and the logos the sandbox serves.
 */
export function referencesRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const either = bearerOrSignature(deps, signatureAuth(deps));

  router.openapi(
    operation({
      method: 'get',
      path: '/v1/banks',
      operationId: 'listBanks',
      tags: ['References'],
      summary: "Banks (where recipients' bank.bankName comes from)",
      security: [...BEARER, ...SIGNED],
      middleware: [either] as const,
      request: {
        query: z.object({
          currency: z
            .string()
            .max(16)
            .optional()
            .openapi({ description: 'Only banks of this currency', example: 'IDR' }),
          country: z
            .string()
            .max(100)
            .optional()
            .openapi({ description: 'Only banks of this country (ISO 3166 alpha-2)', example: 'ID' }),
        }),
      },
      responses: { 200: json(envelope(z.array(BankSchema)), 'Banks'), ...errorResponses(400, 401) },
    }),
    (c) => {
      const { currency, country } = c.req.valid('query');
      const data = BANKS.filter((b) => !currency || b.currency === currency.toUpperCase())
        .filter((b) => !country || b.country === country.toUpperCase())
        .map((b) => ({ bankCode: b.bankCode, bankName: b.bankName, currency: b.currency, country: b.country }));
      return c.json({ statusCode: 200, message: 'Banks retrieved successfully', data }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'get',
      path: '/v1/reference/currencies',
      operationId: 'listCurrencies',
      tags: ['References'],
      summary: 'Currencies (deprecated)',
      deprecated: true,
      security: PUBLIC,
      middleware: [deprecation] as const,
      responses: { 200: json(envelope(z.array(CurrencySchema)), 'Currencies') },
    }),
    (c) => {
      const base = deps.config.baseUrl;
      const data = FIAT_CURRENCIES.map((f) => ({
        _id: f.recordId,
        id: f.recordId,
        value: f.code,
        currency: f.code,
        countryCode: f.countryCode,
        logo: logoUrl(base, `${f.code.toLowerCase()}.svg`),
        name: f.name,
        country: f.country,
        symbol: f.symbol,
        requireBankName: f.requireBankName,
        requireIfsc: f.requireIfsc,
        requireIban: f.requireIban,
        requireAchOrWire: f.requireAchOrWire,
        requireAccountNumber: f.requireAccountNumber,
      }));
      return c.json({ statusCode: 200, message: 'Currencies retrieved successfully', data }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'get',
      path: '/v1/reference/cryptos',
      operationId: 'listCryptos',
      tags: ['References'],
      summary: 'Cryptocurrencies (deprecated)',
      deprecated: true,
      security: PUBLIC,
      middleware: [deprecation] as const,
      request: {
        query: z.object({
          useSmartContract: optionalBoolean,
          blockchainType: z
            .string()
            .max(10)
            .optional()
            .refine((v) => v === undefined || /^(|evm|stellar)$/i.test(v), { message: 'must be EVM or STELLAR' })
            .openapi({ enum: ['EVM', 'STELLAR'] }),
        }),
      },
      responses: { 200: json(envelope(z.array(CryptoSchema)), 'Cryptocurrencies'), ...errorResponses(400) },
    }),
    (c) => {
      const { useSmartContract, blockchainType } = c.req.valid('query');
      const base = deps.config.baseUrl;
      const smart = useSmartContract ? useSmartContract.toLowerCase() === 'true' : undefined;
      const chain = blockchainType ? blockchainType.toUpperCase() : undefined;
      const items = CRYPTOS.filter((k) => smart === undefined || k.useSmartContract === smart)
        .filter((k) => chain === undefined || k.blockchainType === chain)
        .map((k) => ({
          _id: k.recordId,
          id: k.id,
          symbol: k.symbol,
          name: k.name,
          label: `${k.symbol} (${k.networkName})`,
          address: k.address,
          logo: logoUrl(base, k.logo),
          priceId: k.priceId,
          chainId: k.chainId,
          is_native: k.isNative,
          decimal: k.decimal,
          currencies: [...k.currencies],
        }));
      return c.json({ statusCode: 200, message: 'Cryptos retrieved successfully', data: items }, 200);
    },
  );

  router.get('/static/logos/:file', (c) => {
    const svg = logoSvg(c.req.param('file'));
    if (!svg) throw new ApiError(404, 'Logo not found');
    return c.body(svg, 200, {
      'Content-Type': 'image/svg+xml; charset=utf-8',
      'Cache-Control': 'public, max-age=86400',
    });
  });

  return router;
}
