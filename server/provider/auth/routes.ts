import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { dummyHash, emailOfToken, login, normalizeEmail, register, userView, verifyLogin } from './accounts.js';
import { clientAddress, enforceAuthRateLimit, loadAuthRateLimits, RateLimitError } from './rate-limit.js';
import { hashVerificationToken } from './verification.js';
import { issueAccessToken } from './tokens.js';
import { createRouter } from '../http/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import { ErrorSchema, json, operation, PUBLIC, stringError, TIMESTAMP } from '../openapi/operation.js';

const Email = z
  .string(stringError)
  .trim()
  .max(254, 'is too long')
  .pipe(z.email({ error: 'must be a valid email address' }));
const Password = z.string(stringError).max(1024, 'is too long');

const RegisterBody = z
  .object({
    email: Email,
    password: Password.min(8, 'must be at least 8 characters'),
    fullName: z.string(stringError).trim().min(1, 'must not be empty').max(200, 'is too long'),
    nationalID: z.string({ error: 'must be a string' }).max(64, 'is too long').optional(),
    country: z.string({ error: 'must be a string' }).max(100, 'is too long').optional(),
    countryCode: z.string({ error: 'must be a string' }).max(8, 'is too long').optional(),
  })
  .openapi('RegisterRequest');

const LoginBody = z.object({ email: Email, password: Password.min(1, 'is required') }).openapi('LoginRequest');

const VerifyBody = z
  .object({
    verificationToken: z.string(stringError).min(1, 'is required').max(256, 'is too long'),
    otp: z.string(stringError).min(1, 'is required').max(32, 'is too long'),
    isDisableExpire: z.boolean({ error: 'must be a boolean' }).optional().default(false),
  })
  .openapi('VerifyLoginRequest');

const TokenData = z.object({ verificationToken: z.string() });

const User = z
  .object({
    id: z.string(),
    name: z.string(),
    policy: z.string(),
    email: z.string(),
    organizationId: z.object({ _id: z.string(), orgName: z.string() }),
    role: z.string(),
    is_active: z.boolean(),
    invitation_date: TIMESTAMP,
    invitation_expiration_date: TIMESTAMP,
    iskyc: z.boolean(),
    kyc_url: z.string(),
    country: z.string(),
    countryCode: z.string(),
    legalFullName: z.string(),
    providerId: z.string(),
    otp_code: z.string(),
    credentials: z.object({}),
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
  })
  .openapi('User');

const errors = {
  400: json(ErrorSchema, 'Invalid request body (the message names the field)'),
  401: json(ErrorSchema, 'Authentication failed'),
  429: json(ErrorSchema, 'Too many attempts'),
};

const registerRoute = operation({
  method: 'post',
  path: '/v1/auth/register',
  operationId: 'register',
  tags: ['Authentication'],
  security: PUBLIC,
  summary: 'Register; an OTP is mailed. A taken email gets the same answer (and no usable token).',
  request: { body: { content: { 'application/json': { schema: RegisterBody } }, required: true } },
  responses: {
    200: json(
      z.object({ statusCode: z.number(), message: z.string(), data: TokenData }),
      'Verification token; the OTP is mailed',
    ),
    ...errors,
  },
});

const loginRoute = operation({
  method: 'post',
  path: '/v1/auth/login',
  operationId: 'login',
  tags: ['Authentication'],
  security: PUBLIC,
  summary: 'Log in with email and password; an OTP is mailed',
  request: { body: { content: { 'application/json': { schema: LoginBody } }, required: true } },
  responses: {
    200: json(
      z.object({ status: z.number(), message: z.string(), data: TokenData }),
      'Verification token; the OTP is mailed',
    ),
    ...errors,
  },
});

const verifyRoute = operation({
  method: 'post',
  path: '/v1/auth/verify-login',
  operationId: 'verifyLogin',
  tags: ['Authentication'],
  security: PUBLIC,
  summary: 'Confirm a login with its OTP; returns the access token',
  request: { body: { content: { 'application/json': { schema: VerifyBody } }, required: true } },
  responses: {
    200: json(
      z.object({ status: z.number(), message: z.string(), data: z.object({ accessToken: z.string(), user: User }) }),
      'Access token and user',
    ),
    ...errors,
  },
});

export function authRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const limits = loadAuthRateLimits();
  // Compute the unknown-email hash now, so the first failed login is not slower than the others.
  void dummyHash(deps);

  const limit = async (c: Context, scope: string, email: string | undefined) => {
    try {
      await enforceAuthRateLimit(
        deps.db,
        limits,
        scope,
        { email, address: clientAddress(c, limits.trustProxy) },
        deps.now().getTime(),
      );
    } catch (err) {
      if (err instanceof RateLimitError) c.header('Retry-After', String(err.retryAfterSeconds));
      throw err;
    }
  };

  router.openapi(registerRoute, async (c) => {
    const body = c.req.valid('json');
    await limit(c, 'register', normalizeEmail(body.email));
    const verificationToken = await register(deps, body);
    return c.json(
      { statusCode: 200, message: 'Check your email for the verification code', data: { verificationToken } },
      200,
    );
  });

  router.openapi(loginRoute, async (c) => {
    const body = c.req.valid('json');
    await limit(c, 'login', normalizeEmail(body.email));
    const verificationToken = await login(deps, body.email, body.password);
    return c.json(
      { status: 200, message: 'Check your email for the verification code', data: { verificationToken } },
      200,
    );
  });

  router.openapi(verifyRoute, async (c) => {
    const body = c.req.valid('json');
    await limit(c, 'verify-login', await emailOfToken(deps.db, hashVerificationToken(body.verificationToken)));
    const userId = await verifyLogin(deps, body.verificationToken, body.otp);
    const accessToken = await issueAccessToken(deps, userId, body.isDisableExpire);
    return c.json(
      { status: 200, message: 'Login successful', data: { accessToken, user: await userView(deps, userId) } },
      200,
    );
  });

  return router;
}
