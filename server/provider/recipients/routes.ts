import { envelope, ErrorSchema, json, operation, SIGNED } from '../openapi/operation.js';
import { ApiError, createRouter } from '../http/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import { signatureAuth } from '../auth/signature.js';
import {
  CreateRecipientBody,
  IdParam,
  IdQuery,
  ListQuery,
  RecipientPage,
  RecipientView,
  UpdateRecipientBody,
} from './schemas.js';
import { createRecipient, deleteRecipient, findRecipient, listRecipients, updateRecipient } from './store.js';

const errors = {
  400: json(ErrorSchema, 'Invalid request (the message names the field)'),
  401: json(ErrorSchema, 'Signature check failed (the message says which)'),
  404: json(ErrorSchema, 'No such recipient in your organization'),
};
const notFound = () => new ApiError(404, 'Recipient not found');

/**
 * The recipient endpoints, /v1/recipient, S-authenticated and scoped to the caller's organization (another merchant's
 * recipient is a 404).
 */
export function recipientsRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const middleware = signatureAuth(deps);

  router.openapi(
    operation({
      method: 'get',
      path: '/v1/recipient',
      operationId: 'listRecipients',
      tags: ['Recipients'],
      summary: 'List recipients',
      security: SIGNED,
      middleware,
      request: { query: ListQuery },
      responses: { 200: json(envelope(RecipientPage), 'A page of recipients'), ...errors },
    }),
    async (c) => {
      const page = await listRecipients(deps.db, c.get('merchant').organizationId, c.req.valid('query'));
      return c.json({ statusCode: 200, message: 'Recipients', data: page }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'get',
      path: '/v1/recipient/{id}',
      operationId: 'readRecipient',
      tags: ['Recipients'],
      summary: 'Read a recipient',
      security: SIGNED,
      middleware,
      request: { params: IdParam },
      responses: { 200: json(envelope(RecipientView), 'The recipient'), ...errors },
    }),
    async (c) => {
      const recipient = await findRecipient(deps.db, c.get('merchant').organizationId, c.req.valid('param').id);
      if (!recipient) throw notFound();
      return c.json({ statusCode: 200, message: 'Recipient', data: recipient }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'post',
      path: '/v1/recipient',
      operationId: 'createRecipient',
      tags: ['Recipients'],
      summary: 'Create a recipient (bank: one object in, an array out)',
      security: SIGNED,
      middleware,
      request: { body: { content: { 'application/json': { schema: CreateRecipientBody } }, required: true } },
      responses: {
        200: json(envelope(RecipientView), 'The created recipient'),
        403: json(ErrorSchema, 'organizationId is not yours'),
        ...errors,
      },
    }),
    async (c) => {
      const merchant = c.get('merchant');
      const body = c.req.valid('json');
      if (body.organizationId !== undefined && body.organizationId !== merchant.organizationId) {
        throw new ApiError(403, 'organizationId: recipients can only be created in your own organization');
      }
      const recipient = await createRecipient(deps.db, merchant, body, deps.now());
      return c.json({ statusCode: 200, message: 'Recipient created', data: recipient }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'patch',
      path: '/v1/recipient',
      operationId: 'updateRecipient',
      tags: ['Recipients'],
      summary: 'Update a recipient (?id=); name is applied',
      security: SIGNED,
      middleware,
      request: {
        query: IdQuery,
        body: { content: { 'application/json': { schema: UpdateRecipientBody } }, required: true },
      },
      responses: {
        200: json(envelope(RecipientView), 'The updated recipient'),
        403: json(ErrorSchema, 'organizationId is not yours'),
        ...errors,
      },
    }),
    async (c) => {
      const merchant = c.get('merchant');
      const body = c.req.valid('json');
      if (body.organizationId !== undefined && body.organizationId !== merchant.organizationId) {
        throw new ApiError(403, 'organizationId: recipients can only be moved within your own organization');
      }
      const recipient = await updateRecipient(
        deps.db,
        merchant.organizationId,
        c.req.valid('query').id,
        body,
        deps.now(),
      );
      if (!recipient) throw notFound();
      return c.json({ statusCode: 200, message: 'Recipient updated', data: recipient }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'delete',
      path: '/v1/recipient',
      operationId: 'deleteRecipient',
      tags: ['Recipients'],
      summary: 'Delete a recipient (?id=); answers with the deleted one',
      security: SIGNED,
      middleware,
      request: { query: IdQuery },
      responses: { 200: json(envelope(RecipientView), 'The deleted recipient'), ...errors },
    }),
    async (c) => {
      const recipient = await deleteRecipient(deps.db, c.get('merchant').organizationId, c.req.valid('query').id);
      if (!recipient) throw notFound();
      return c.json({ statusCode: 200, message: 'Recipient deleted', data: recipient }, 200);
    },
  );

  return router;
}
