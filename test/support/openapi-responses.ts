// Checks answers against the payment service's OpenAPI document (/v1/openapi.json), as a validating proxy in front of
// the service would: an answer of a documented operation must have a documented status, and its JSON body must match
// that status's schema (JSON Schema 2020-12, which OpenAPI 3.1 schemas are). The provider harness runs every answer of
// app.request() through it (test/support/provider.ts).
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}
/** The parts of the document the check reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: unknown;
}

interface Route {
  method: string;
  pattern: RegExp;
  template: string;
  operation: Operation;
}

/** The JSON Pointer token of a key ("/" and "~" escaped). */
const token = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const DOC_ID = 'https://kasir.test/openapi.json';

export class ResponseChecker {
  private readonly routes: Route[];
  private readonly ajv = new Ajv2020({ allErrors: false, strict: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly bySchema = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    addFormats(this.ajv);
    // The whole document under one id: the schemas' "#/components/schemas/X" references resolve inside it.
    this.ajv.addSchema({ ...doc, $id: DOC_ID }, DOC_ID);
    this.routes = Object.entries(doc.paths)
      .flatMap(([template, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          method: method.toUpperCase(),
          template,
          operation,
          pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        })),
      )
      // A literal segment wins over a parameter (/v1/deposit/fiat before /v1/deposit/{depositId}), as the router's order does.
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /** The document's operation for a request, or undefined when the request is not one (a page, an unknown path). */
  private route(method: string, path: string): Route | undefined {
    return this.routes.find((r) => r.method === method && r.pattern.test(path));
  }

  private validator(route: Route, status: string, type: string): ValidateFunction {
    const key = `${route.method} ${route.template} ${status} ${type}`;
    let validate = this.validators.get(key);
    if (!validate) {
      // One compiled validator per distinct schema: the many error answers share the Error schema's.
      const schema = JSON.stringify(route.operation.responses?.[status]?.content?.[type]?.schema);
      validate = this.bySchema.get(schema);
      if (!validate) {
        const pointer = [
          'paths',
          route.template,
          route.method.toLowerCase(),
          'responses',
          status,
          'content',
          type,
          'schema',
        ]
          .map(token)
          .join('/');
        validate = this.ajv.compile({ $ref: `${DOC_ID}#/${pointer}` });
        this.bySchema.set(schema, validate);
      }
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Whether an answer to `method path` is worth reading: only documented operations are checked. */
  covers(method: string, path: string): boolean {
    return this.route(method, path) !== undefined;
  }

  /**
   * What is wrong with an answer, or undefined when the document describes it. `body` is the answer's text. The
   * message starts with the operation, status and fault, then " (e.g. " and the request: one fault, many requests.
   */
  check(method: string, path: string, status: number, contentType: string | null, body: string): string | undefined {
    const route = this.route(method, path);
    if (!route) return undefined;
    const where = `${route.method} ${route.template} -> ${status}`;
    const sample = `(e.g. ${method} ${path}: ${body.slice(0, 300)})`;
    const responses = route.operation.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
    if (!key) return `${where}: status not documented (documented: ${Object.keys(responses).join(', ')}) ${sample}`;
    const content = responses[key].content;
    if (!content) return body === '' ? undefined : `${where}: a body where the document has none ${sample}`;
    const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
    if (!(type in content))
      return `${where}: Content-Type ${contentType} not documented (documented: ${Object.keys(content).join(', ')})`;
    if (type !== 'application/json') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return `${where}: not JSON ${sample}`;
    }
    const validate = this.validator(route, key, type);
    if (validate(value)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message} (${e.schemaPath})`)
      .join('; ');
    return `${where}: body does not match the document: ${errors} ${sample}`;
  }
}
